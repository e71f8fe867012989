// Kept zstd contexts (zstdContext.ts) give exactly what node:zlib's one-shot functions give, frame
// after frame, with and without a dictionary; a frame that does not decompress, or to another size,
// is refused and does not spoil the frames after it; a frame compressed into a given buffer is the same frame. And this runtime does keep contexts: the
// speed of scattered block reads rests on it (docs/dataset-format.md), so a Node upgrade that
// changes node:zlib's stream internals fails here instead of quietly reading slower.
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { frameBound, keptContexts, ZstdCompressor, ZstdDecompressor } from '../../../src/core/dataset/codec/zstdContext';
import { streamContentSize } from '../../../src/core/dataset/codec/zstdFrames';

/** Record-like texts: JSON arrays with repeated shapes and varying values. */
function texts(seed: number, count: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const v = (seed * 7919 + i * 104729) % 1000003;
    lines.push(JSON.stringify([`${v.toString(16).padStart(8, '0')}`, 'SMITH', i % 7, v % 90, 'SPRINGFIELD', 'IL', '', 'Y', v % 3]));
  }
  return Buffer.from(lines.join('\n'));
}

describe('kept zstd contexts', () => {
  it('are what this runtime uses', () => {
    expect(keptContexts).toBe(true);
  });

  it.each([
    ['without a dictionary', undefined, true],
    ['with a dictionary', texts(999, 200), true],
    ['with a dictionary, one-shot (where contexts cannot be kept)', texts(999, 200), false],
  ])('round-trip many frames %s, byte for byte as node:zlib one-shot', (_label, dictionary, keep) => {
    const compressor = new ZstdCompressor(3, dictionary, keep);
    const decompressor = new ZstdDecompressor(dictionary, keep);
    const option = dictionary ? { dictionary } : {};
    for (let i = 0; i < 50; i++) {
      const input = texts(i, 1 + ((i * 37) % 400));
      const frame = compressor.compress(input);
      expect(streamContentSize(frame)).toBe(input.byteLength);
      expect(zstdDecompressSync(frame, option).equals(input)).toBe(true);
      const out = decompressor.decompress(frame, input.byteLength);
      expect(out.byteLength).toBe(input.byteLength);
      expect(out.equals(input)).toBe(true);
      // What the one-shot compressor writes reads back the same way.
      expect(decompressor.decompress(zstdCompressSync(input, option), input.byteLength).equals(input)).toBe(true);
    }
  });

  it.each([true, false])(
    'compress into a given buffer the frame compress() returns, and refuse too little room (kept context: %s)',
    (keep) => {
      const compressor = new ZstdCompressor(1, undefined, keep, true);
      const reference = new ZstdCompressor(1, undefined, keep, true);
      const out = Buffer.alloc(64 * 1024);
      for (let i = 0; i < 20; i++) {
        const input = texts(i, 1 + ((i * 53) % 300));
        const n = compressor.compressInto(input, out);
        expect(out.subarray(0, n).equals(reference.compress(input))).toBe(true);
      }
      const input = texts(3, 300);
      expect(() => compressor.compressInto(input, Buffer.alloc(frameBound(input) - 1))).toThrow(/too little room/);
    },
  );

  it('a dictionary pays on record-like text', () => {
    const dictionary = texts(5, 300);
    const input = texts(6, 32);
    expect(new ZstdCompressor(3, dictionary).compress(input).byteLength).toBeLessThan(new ZstdCompressor(3).compress(input).byteLength);
  });

  it.each([true, false])('refuses a damaged, cut or mis-sized frame, and reads the next frame correctly (kept context: %s)', (keep) => {
    const dictionary = texts(1, 100);
    const compressor = new ZstdCompressor(3, dictionary, keep);
    const decompressor = new ZstdDecompressor(dictionary, keep);
    const input = texts(2, 300);
    const good = compressor.compress(input);
    const flipped = Buffer.from(good);
    for (let k = 20; k < flipped.byteLength - 4; k += 97) flipped[k]! ^= 0x5a;
    const bad: Array<[Buffer, number]> = [
      [flipped, input.byteLength],
      [good.subarray(0, good.byteLength >> 1), input.byteLength],
      [good, input.byteLength - 1],
      [good, input.byteLength + 1],
    ];
    for (const [frame, size] of bad) {
      let out: Buffer | undefined;
      try {
        out = decompressor.decompress(frame, size);
      } catch {
        // Refused: what a damaged frame should get.
      }
      // Never other bytes than the input's: a flipped frame either fails or, at worst, is caught by the block's CRC first.
      if (out) expect(out.equals(input)).toBe(true);
      expect(decompressor.decompress(good, input.byteLength).equals(input)).toBe(true);
    }
    expect(() => decompressor.decompress(good, input.byteLength - 1)).toThrow();
    expect(() => decompressor.decompress(good.subarray(0, good.byteLength >> 1), input.byteLength)).toThrow();
    // Without the dictionary the frame does not read.
    expect(() => new ZstdDecompressor(undefined, keep).decompress(good, input.byteLength)).toThrow();
  });

  it.each([true, false])('with checksums, never gives other bytes than a frame held (kept context: %s)', (keep) => {
    const decompressor = new ZstdDecompressor(undefined, keep);
    const input = texts(3, 60);
    // Each bit of the frame flipped in turn: how many flips read back as other bytes than the input.
    const wrongReads = (frame: Buffer): number => {
      let wrong = 0;
      for (let bit = 0; bit < frame.byteLength * 8; bit++) {
        const damaged = Buffer.from(frame);
        damaged[bit >> 3]! ^= 1 << (bit & 7);
        try {
          if (!decompressor.decompress(damaged, input.byteLength).equals(input)) wrong++;
        } catch {
          // Refused: what a damaged frame should get. (A few bits zstd never reads change nothing.)
        }
      }
      return wrong;
    };
    const plain = new ZstdCompressor(1, undefined, keep).compress(input);
    const checked = new ZstdCompressor(1, undefined, keep, true).compress(input);
    expect(checked.byteLength).toBe(plain.byteLength + 4);
    expect(decompressor.decompress(checked, input.byteLength).equals(input)).toBe(true);
    expect(wrongReads(plain)).toBeGreaterThan(0);
    expect(wrongReads(checked)).toBe(0);
  });
});
