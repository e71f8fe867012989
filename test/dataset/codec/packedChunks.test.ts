// Format 8 packs a field's one-byte chunks whose values fit 4 bits (packedChunks.ts): every such chunk
// reads back exactly, on any length and into any place (word-aligned or not), through the reading
// thread's decode and the shared read's inflateChunk; values of 16 or more, and other kinds, stay
// zstd frames; and every way a packed chunk can be wrong is damage, never wrong values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bitsFor, isPacked, PACKED_MAGIC } from '../../../src/core/dataset/codec/packedChunks';
import { ChunkLayout, inflateChunk, VECTOR_CHUNK, type VectorHeader } from '../../../src/core/dataset/codec/vectorChunks';
import { ZstdDecompressor } from '../../../src/core/dataset/codec/zstdContext';

const header = (length: number, kind: VectorHeader['kind'] = 'u8'): VectorHeader => ({
  name: 'V',
  encoding: 'dict',
  kind,
  length,
  dict: null,
});

/** n values below `limit`, drawn with `seed`, a share `rare` of them not 0 (a flag) when given. */
function values(n: number, limit: number, seed: number, rare?: number): Uint8Array {
  let s = seed >>> 0 || 1;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return Uint8Array.from({ length: n }, () => (rare !== undefined && next() >= rare ? 0 : Math.floor(next() * limit)));
}

describe('packed vector chunks', () => {
  it('take 1, 2 or 4 bits by the largest value, none from 16 on', () => {
    expect([0, 1, 2, 3, 4, 15, 16, 255].map(bitsFor)).toEqual([1, 1, 2, 2, 4, 4, 0, 0]);
  });

  it('a property: any one-byte chunk reads back exactly, packed when its values fit 4 bits, on both read paths', () => {
    const decompressor = new ZstdDecompressor();
    fc.assert(
      fc.property(
        fc.constantFrom(2, 3, 4, 5, 16, 17, 256),
        fc.oneof(fc.constantFrom(1, 7, 8, 9, 4093, VECTOR_CHUNK - 1, VECTOR_CHUNK), fc.integer({ min: 1, max: VECTOR_CHUNK })),
        fc.option(fc.constantFrom(0.001, 0.05, 0.5), { nil: undefined }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 1e9 }),
        (limit, n, rare, offset, seed) => {
          const layout = new ChunkLayout(VECTOR_CHUNK);
          const chunk = values(n, limit, seed, rare);
          // Written from `offset` bytes into a buffer too, as a chunk of a vector of odd chunk size is.
          const from = new Uint8Array(n + offset);
          from.set(chunk, offset);
          const stored = layout.encodeFieldValues('V', 0, from.subarray(offset));
          expect(Buffer.from(layout.encodeFieldValues('V', 0, chunk).data).equals(Buffer.from(stored.data))).toBe(true);
          let max = 0;
          for (const v of chunk) max = Math.max(max, v);
          expect(isPacked(stored.data)).toBe(max < 16);
          // Read into a place `offset` bytes into a buffer, as a chunk's place in a vector or a scratch.
          const room = new Uint8Array(n + offset + 3).fill(0xee);
          const out = room.subarray(offset, offset + n);
          layout.decode('test', header(n), 0, stored, out);
          expect(Buffer.from(out).equals(Buffer.from(chunk))).toBe(true);
          expect(room[offset + n]).toBe(0xee);
          const shared = new Uint8Array(new SharedArrayBuffer(n + offset)).subarray(offset);
          inflateChunk(stored.data, shared, decompressor);
          expect(Buffer.from(shared).equals(Buffer.from(chunk))).toBe(true);
        },
      ),
      { numRuns: 300, seed: 8 },
    );
  });

  it("keeps a gender's two codes a bit each, and a rare flag's bits compressed", () => {
    const layout = new ChunkLayout(VECTOR_CHUNK);
    const gender = layout.encodeFieldValues('V', 0, values(VECTOR_CHUNK, 2, 5));
    expect(Buffer.from(gender.data).readUInt32LE(0)).toBe(PACKED_MAGIC);
    expect(gender.data[8]).toBe(1);
    // 8 KB of bits and a 10-byte header: random bits do not compress.
    expect(gender.data.length).toBe(10 + VECTOR_CHUNK / 8);
    const flag = layout.encodeFieldValues('V', 0, values(VECTOR_CHUNK, 2, 6, 0.01));
    expect(Buffer.from(flag.data).readUInt32LE(0)).toBe(PACKED_MAGIC);
    expect(flag.data[9]).toBe(1);
    expect(flag.data.length).toBeLessThan(3000);
  });

  it('a packed chunk that is wrong in any way is damage, never values', () => {
    const layout = new ChunkLayout(VECTOR_CHUNK);
    const n = 1000;
    const good = layout.encodeFieldValues('V', 0, values(n, 4, 9));
    expect(isPacked(good.data)).toBe(true);
    const stored = (edit: (d: Buffer) => Buffer) => {
      const data = edit(Buffer.from(good.data));
      return { data, crc: layout.crcOf('V', 0, n, data) };
    };
    const cases: Array<[string, Buffer]> = [
      ['bits 3', stored((d) => ((d[8] = 3), d)).data],
      ['unknown form', stored((d) => ((d[9] = 7), d)).data],
      ['length field', stored((d) => (d.writeUInt32LE(5, 4), d)).data],
      ['cut short', stored((d) => d.subarray(0, d.length - 1)).data],
      ['header only', stored((d) => d.subarray(0, 9)).data],
    ];
    for (const [, data] of cases)
      expect(() => layout.decode('test', header(n), 0, { data, crc: layout.crcOf('V', 0, n, data) }, new Uint8Array(n))).toThrow(
        'chunk 0 of the vector of V does not decompress',
      );
    // A packed chunk under a vector of wider values is not read as one.
    const wide = { data: good.data, crc: layout.crcOf('V', 0, n, good.data) };
    expect(() => layout.decode('test', header(n, 'u16'), 0, wide, new Uint8Array(2 * n))).toThrow(
      'is packed, but its vector is not of bytes',
    );
    // A flipped bit anywhere fails the checksum first.
    const flipped = Buffer.from(good.data);
    flipped[20]! ^= 1;
    expect(() => layout.decode('test', header(n), 0, { data: flipped, crc: good.crc }, new Uint8Array(n))).toThrow('fails its checksum');
  });
});
