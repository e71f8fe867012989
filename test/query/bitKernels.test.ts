// The loops over filters' bits (bitKernels.ts) against the plainest reading: every person's bit
// looked at one at a time. Ranges start and end anywhere in a state for counts, and at every byte
// for marks (pieces write whole bytes of their own); marks not word-aligned take the byte loop; a
// range's bytes are the only ones written. Then the marking and counting loops fed predicates that
// carry bits answer exactly as the same predicates without them.
import { describe, expect, it } from 'vitest';
import { randomFrom as random } from '../../src/core/audience/contract/listSteps';
import { bitBytes, bitsInto, countBits, type PredicateBits } from '../../src/core/query/bitKernels';
import { markRange } from '../../src/core/query/markKernels';
import { matchRange, type ScanPredicate } from '../../src/core/query/scanKernels';
import { LENGTH, maskOf, plainly, vector } from '../support/scanVectors';

/** Where the made-up state starts among positions. */
const FROM = 1000;
/** People of the made-up state. */
const PEOPLE = 333;

function bitsOf(share: number, next: () => number): PredicateBits {
  const bytes = new Uint8Array(new SharedArrayBuffer(bitBytes(PEOPLE)));
  for (let r = 0; r < PEOPLE; r++) if (next() < share) bytes[r >>> 3]! |= 1 << (r & 7);
  return { bytes, words: new Uint32Array(bytes.buffer), from: FROM };
}

const bit = (b: PredicateBits, pos: number) => (b.bytes[(pos - b.from) >>> 3]! >>> ((pos - b.from) & 7)) & 1;

describe('bit kernels', () => {
  it('count the people set in every array, for one, two and three arrays, over any range', () => {
    const next = random(7);
    const arrays = [bitsOf(0.5, next), bitsOf(0.3, next), bitsOf(0.9, next)];
    let checked = 0;
    for (let n = 1; n <= 3; n++) {
      const bits = arrays.slice(0, n);
      for (let first = FROM; first < FROM + PEOPLE; first += 7)
        for (const end of [first, first + 1, first + 31, first + 64, first + 100, FROM + PEOPLE - 1, FROM + PEOPLE]) {
          if (end < first || end > FROM + PEOPLE) continue;
          let plain = 0;
          for (let i = first; i < end; i++) if (bits.every((b) => bit(b, i) === 1)) plain++;
          expect(countBits(bits, first, end), `${n} arrays [${first}, ${end})`).toBe(plain);
          checked++;
        }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('copy and AND bits into marks at every byte, aligned or not, writing only the range’s bytes', () => {
    const next = random(11);
    const source = bitsOf(0.5, next);
    for (const offset of [0, 1, 3])
      for (const and of [false, true])
        for (let first = FROM; first < FROM + PEOPLE; first += 8)
          for (const end of [first + 1, first + 8, first + 37, first + 130, FROM + PEOPLE]) {
            if (end > FROM + PEOPLE) continue;
            const marks = new Uint8Array(new ArrayBuffer(bitBytes(PEOPLE) + offset), offset, bitBytes(PEOPLE));
            for (let o = 0; o < marks.length; o++) marks[o] = Math.floor(next() * 256);
            const before = marks.slice();
            const at = (first - FROM) >>> 3;
            const n = bitsInto(source, first, end, marks, at, and);
            const lastByte = at + Math.ceil((end - first) / 8);
            let set = 0;
            for (let i = first; i < lastByte * 8 + FROM; i++) {
              const r = i - FROM;
              const had = (before[r >>> 3]! >>> (r & 7)) & 1;
              const want = i < end ? (and ? had & bit(source, i) : bit(source, i)) : 0;
              expect((marks[r >>> 3]! >>> (r & 7)) & 1, `offset ${offset} and ${and} [${first}, ${end}) at ${i}`).toBe(want);
              set += want;
            }
            expect(n).toBe(set);
            expect([...marks.subarray(0, at)]).toEqual([...before.subarray(0, at)]);
            expect([...marks.subarray(lastByte)]).toEqual([...before.subarray(lastByte)]);
          }
  });

  it('let the marking and counting loops answer from bits exactly as from the vectors', () => {
    const next = random(5);
    // A state of LENGTH - 3 positions from position 3 (the vectors are LENGTH long).
    const first = 3;
    const end = LENGTH;
    const plainPredicates: ScanPredicate[] = [
      { data: vector('u8', 2, 1, next), mask: maskOf(2, 0.5, next) },
      { data: vector('u8', 9, 2, next), mask: maskOf(9, 0.4, next) },
      { data: vector('u16', 3000, 1, next), mask: maskOf(3000, 0.3, next) },
      { data: vector('u32', 100_000, 0, next), bands: [{ lo: 10_000, hi: 60_000 }] },
    ];
    const withBits = plainPredicates.map((p): ScanPredicate => {
      if (!p.mask) return p;
      const bytes = new Uint8Array(new SharedArrayBuffer(bitBytes(end - first)));
      markRange([p], first, end, bytes, first);
      return { ...p, bits: { bytes, words: new Uint32Array(bytes.buffer), from: first } };
    });
    const sets = [[0], [1], [0, 1], [1, 0, 2], [2, 3], [3, 0], [0, 1, 2, 3]];
    for (const picked of sets) {
      const plain = picked.map((k) => plainPredicates[k]!);
      const bitsToo = picked.map((k) => withBits[k]!);
      const expected = plainly(plain, first, end);
      expect(matchRange(bitsToo, first, end, new Uint32Array(LENGTH), true), `count ${picked}`).toBe(expected.length);
      for (let from = first; from < end; from += 40) {
        const to = Math.min(end, from + 123);
        const a = new Uint8Array(bitBytes(end - first));
        const b = new Uint8Array(bitBytes(end - first));
        const n = markRange(plain, from, to, a, first);
        expect(markRange(bitsToo, from, to, b, first), `mark ${picked} [${from}, ${to})`).toBe(n);
        expect([...b]).toEqual([...a]);
      }
    }
  });
});
