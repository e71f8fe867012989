// Issue 32: a valid piece was reported damaged. node:zlib's one-shot compressor, when a frame fills
// its output chunk exactly, calls zstd once more with the end flag and so appends a second, empty
// frame; the kept-context reader then found input left over and called the piece undecodable.
// Checked here: writers write exactly one frame whatever its size (including the sizes that fill a
// chunk exactly), the kept and one-shot readers agree on every piece a zstd stream can be (frames
// followed by empty, further or skippable frames) and on every kind of damage, and a property over
// vector shapes and lengths (exact multiples of 64 KiB among them) writes, checks and reads back
// every chunk both ways.
import fc from 'fast-check';
import { zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { VECTOR_TYPES, type Vector, type VectorKind } from '../../../src/core/dataset/codec/columnVector';
import { ChunkLayout, VECTOR_CHUNK, type VectorHeader } from '../../../src/core/dataset/codec/vectorChunks';
import { ZstdCompressor, ZstdDecompressor } from '../../../src/core/dataset/codec/zstdContext';
import { isOneFrameOf, streamContentSize, zstdFrames } from '../../../src/core/dataset/codec/zstdFrames';
import { randomFrom } from '../../../src/core/audience/contract/listSteps';

/** node:zlib's default output chunk for its one-shot functions: a frame of exactly this size triggered the bug. */
const ZLIB_CHUNK = 16 * 1024;
const EMPTY_FRAME = zstdCompressSync(Buffer.alloc(0));
/** A skippable frame (magic 0x184D2A53) of 5 bytes of anything. */
const SKIPPABLE_FRAME = Buffer.from([0x53, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5]);

function randomBytes(seed: number, n: number): Buffer {
  const rnd = randomFrom(seed);
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rnd() * 256);
  return out;
}

/** What a decompressor makes of a piece: its bytes, or 'refused'. */
function readBack(keep: boolean, piece: Uint8Array, size: number): Buffer | 'refused' {
  try {
    return new ZstdDecompressor(undefined, keep).decompress(piece, size);
  } catch {
    return 'refused';
  }
}

/** Both paths' answer, which must agree. */
function bothPaths(piece: Uint8Array, size: number): Buffer | 'refused' {
  const kept = readBack(true, piece, size);
  const oneShot = readBack(false, piece, size);
  expect(kept === 'refused' ? kept : kept.toString('hex')).toEqual(oneShot === 'refused' ? oneShot : oneShot.toString('hex'));
  return kept;
}

describe('zstd frames as stored pieces', () => {
  it.each([true, false])('a writer writes one frame even when it fills the one-shot output chunk exactly (kept context: %s)', (keep) => {
    const compressor = new ZstdCompressor(1, undefined, keep);
    const sizes = new Set<number>();
    // Incompressible inputs just under 16 KiB and 32 KiB: their frames step through every size
    // around the chunk's, so some frame is exactly one or two chunks long.
    for (const base of [ZLIB_CHUNK, 2 * ZLIB_CHUNK])
      for (let n = base - 24; n <= base + 4; n++) {
        const input = randomBytes(n, n);
        const frame = compressor.compress(input);
        expect(isOneFrameOf(frame, n), `${n} bytes in`).toBe(true);
        expect(new ZstdDecompressor(undefined, keep).decompress(frame, n).equals(input)).toBe(true);
        sizes.add(frame.byteLength);
      }
    expect(sizes.has(ZLIB_CHUNK)).toBe(true);
    expect(sizes.has(2 * ZLIB_CHUNK)).toBe(true);
  });

  it('reads the layout of frames from their headers', () => {
    const a = zstdCompressSync(randomBytes(1, 70_000));
    const b = zstdCompressSync(Buffer.alloc(300_000, 7));
    const piece = Buffer.concat([a, EMPTY_FRAME, SKIPPABLE_FRAME, b]);
    expect(zstdFrames(piece)).toEqual([
      { start: 0, end: a.byteLength, skippable: false, contentSize: 70_000 },
      { start: a.byteLength, end: a.byteLength + 9, skippable: false, contentSize: 0 },
      { start: a.byteLength + 9, end: a.byteLength + 9 + 13, skippable: true, contentSize: -1 },
      { start: a.byteLength + 22, end: piece.byteLength, skippable: false, contentSize: 300_000 },
    ]);
    expect(streamContentSize(piece)).toBe(370_000);
    expect(isOneFrameOf(a, 70_000)).toBe(true);
    expect(isOneFrameOf(piece, 370_000)).toBe(false);
    expect(isOneFrameOf(Buffer.concat([a, EMPTY_FRAME]), 70_000)).toBe(false);
    for (const notWhole of [
      Buffer.alloc(0),
      Buffer.from('not a zstd frame'),
      a.subarray(0, a.byteLength - 1),
      Buffer.concat([a, Buffer.from([0])]),
    ]) {
      expect(zstdFrames(notWhole)).toBeNull();
      expect(streamContentSize(notWhole)).toBe(-1);
    }
    for (const n of [0, 1, 255, 256, 65_791, 65_792, 1_000_000]) expect(streamContentSize(zstdCompressSync(Buffer.alloc(n, 7)))).toBe(n);
  });

  it('the kept and one-shot paths read a frame and an empty frame, as the damaged-looking chunk was stored', () => {
    // The piece of the issue: one frame of exactly 32,768 bytes holding 65,536, then an empty frame.
    const input = Buffer.concat([randomBytes(3, 32_700), Buffer.alloc(65_536 - 32_700, 1)]);
    const piece = Buffer.concat([zstdCompressSync(input), EMPTY_FRAME]);
    const got = bothPaths(piece, input.byteLength);
    expect(got !== 'refused' && got.equals(input)).toBe(true);
  });

  it('the kept and one-shot paths agree on frames that fill their output followed by more frames, and on damage', () => {
    const a = randomBytes(4, 5_000);
    const b = Buffer.alloc(12_345, 9);
    const fa = zstdCompressSync(a);
    const fb = zstdCompressSync(b);
    const checked = new ZstdCompressor(1, undefined, true, true).compress(a);
    const both = Buffer.concat([a, b]);
    const valid: Array<[string, Buffer, Buffer]> = [
      ['two frames', Buffer.concat([fa, fb]), both],
      ['two frames, then empty ones', Buffer.concat([fa, fb, EMPTY_FRAME, EMPTY_FRAME]), both],
      ['an empty frame first', Buffer.concat([EMPTY_FRAME, fa]), a],
      ['a skippable frame between', Buffer.concat([fa, SKIPPABLE_FRAME, fb]), both],
      ['only an empty frame', EMPTY_FRAME, Buffer.alloc(0)],
    ];
    for (const [what, piece, want] of valid) {
      const got = bothPaths(piece, want.byteLength);
      expect(got === 'refused' ? what : got.equals(want), what).toBe(true);
    }
    const damaged: Array<[string, Buffer, number]> = [
      ['a frame that fills its output, then more content', Buffer.concat([fa, fb]), a.byteLength],
      ['a frame, then bytes that are no frame', Buffer.concat([fa, Buffer.from([1, 2, 3])]), a.byteLength],
      ['a frame cut short', fa.subarray(0, fa.byteLength - 3), a.byteLength],
      ['a frame whose checksum is cut off', checked.subarray(0, checked.byteLength - 4), a.byteLength],
      ['two frames, the second cut short', Buffer.concat([fa, fb.subarray(0, 10)]), both.byteLength],
      ['frames that hold less than their size', Buffer.concat([fa, EMPTY_FRAME]), a.byteLength + 1],
      ['nothing', Buffer.alloc(0), 0],
    ];
    for (const [what, piece, size] of damaged) expect(bothPaths(piece, size), what).toBe('refused');
  });

  it('a property: every vector shape and length is written as one frame a chunk and read back the same on both paths', () => {
    const kinds = Object.keys(VECTOR_TYPES) as VectorKind[];
    const shape = fc.constantFrom('random', 'constant', 'runs', 'small range', 'incompressible words');
    // Lengths: exact multiples of 64 KiB and their neighbours, anything up to three chunks, and
    // values whose bytes fall just under one or two of node:zlib's output chunks (random values do
    // not compress: a frame of n such bytes is n + 10 bytes long, so some fill a chunk exactly).
    const length = fc.oneof(
      fc.constantFrom(1, VECTOR_CHUNK - 1, VECTOR_CHUNK, VECTOR_CHUNK + 1, 2 * VECTOR_CHUNK, 3 * VECTOR_CHUNK).map((n) => () => n),
      fc.integer({ min: 1, max: 3 * VECTOR_CHUNK + 7 }).map((n) => () => n),
      fc.record({ chunks: fc.constantFrom(1, 2), under: fc.integer({ min: 9, max: 11 }) }).map(
        ({ chunks, under }) =>
          (width: number) =>
            Math.max(1, Math.floor((chunks * ZLIB_CHUNK - under) / width)),
      ),
    );
    const chunk = fc.constantFrom(VECTOR_CHUNK, VECTOR_CHUNK, 16_384, 4_093);
    const oneShot = new ZstdDecompressor(undefined, false);
    fc.assert(
      fc.property(fc.constantFrom(...kinds), shape, length, chunk, fc.integer({ min: 0, max: 1e9 }), (kind, how, lengthFor, size, seed) => {
        const n = lengthFor(VECTOR_TYPES[kind].BYTES_PER_ELEMENT);
        const vector = makeVector(kind, how, n, seed);
        const layout = new ChunkLayout(size);
        const header: VectorHeader = { name: 'V', encoding: 'value', kind, length: n, dict: null };
        const back = new VECTOR_TYPES[kind](n);
        const viaOneShot = new VECTOR_TYPES[kind](n);
        for (let c = 0; c < layout.count(n); c++) {
          // The zstd path itself (a field's one-byte chunks of small values are packed instead: packedChunks.test.ts).
          const stored = layout.encodeValues('V', c, vector.subarray(c * size, (c + 1) * size));
          const bytes = layout.checked('test', header, c, stored);
          expect(isOneFrameOf(stored.data, bytes)).toBe(true);
          layout.decode('test', header, c, stored, layout.place(back, c));
          oneShot.decompressInto(stored.data, layout.place(viaOneShot, c));
        }
        expect(Buffer.from(back.buffer).equals(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength))).toBe(true);
        expect(Buffer.from(viaOneShot.buffer).equals(Buffer.from(back.buffer))).toBe(true);
      }),
      { numRuns: 200, seed: 32 },
    );
  });
});

function makeVector(kind: VectorKind, how: string, n: number, seed: number): Vector {
  const rnd = randomFrom(seed);
  const v = new VECTOR_TYPES[kind](n);
  const top = kind === 'u8' ? 256 : kind === 'u16' ? 65_536 : 2 ** 32;
  const value = (x: number): number => (kind === 'i32' ? (x % top) - 2 ** 31 : kind === 'f64' ? x / 7 : x % top);
  let run = value(0);
  for (let i = 0; i < n; i++) {
    if (how === 'random') v[i] = value(Math.floor(rnd() * top));
    else if (how === 'constant') v[i] = value(seed);
    else if (how === 'runs') {
      if (rnd() < 0.01) run = value(Math.floor(rnd() * top));
      v[i] = run;
    } else if (how === 'small range') v[i] = value(Math.floor(rnd() * 5));
    else v[i] = value(Math.floor(rnd() * top) ^ i);
  }
  return v;
}
