// The scan loops (scanKernels.ts) against the plainest reading of a filter: every position tested
// one at a time. Ranges start and end at every offset of a 32-bit word, vectors start at odd byte
// offsets of their buffers, and each vector type takes its own loop, so the word reads, the fused
// count of two filters and the generic loop are each compared on the same answers.
import { describe, expect, it } from 'vitest';
// Seeded (the sample control's mulberry32), so a failure names its case.
import { randomFrom as random } from '../../src/core/audience/contract/listSteps';
import { countRange, matchRange, refine, scan, tally, type ScanPredicate } from '../../src/core/query/scanKernels';
import { LENGTH, maskOf, plainly, vector } from '../support/scanVectors';

/** Predicates of every kind the engine makes: masks over one- and two-byte vectors (some keeping one value), bands, hashes. */
function predicates(seed: number): ScanPredicate[] {
  const next = random(seed);
  const offset = Math.floor(next() * 4);
  return [
    { data: vector('u8', 2, offset, next), mask: maskOf(2, 0.5, next) },
    { data: vector('u8', 200, offset + 1, next), mask: maskOf(256, 0.6, next) },
    { data: vector('u8', 9, offset, next), mask: maskOf(9, 0.4, next) },
    { data: vector('u16', 3000, offset, next), mask: maskOf(3000, 0.3, next) },
    // One value kept: counted a word at a time without lookups, the lowest and the highest code.
    { data: vector('u8', 3, offset, next), mask: Uint8Array.of(1, 0, 0) },
    { data: vector('u8', 256, offset + 2, next), mask: Uint8Array.from({ length: 256 }, (_, v) => (v === 255 ? 1 : 0)) },
    {
      data: vector('u32', 100_000, 0, next),
      bands: [
        { lo: 0, hi: 40_000 },
        { lo: 70_000, hi: 90_000 },
      ],
    },
    { data: vector('u32', 50, 0, next), hashes: new Set([3, 7, 11, 19, 23, 31, 40, 41, 47]) },
    // Few hashes are compared in the loop (one, or up to eight), more looked up in the Set above.
    { data: vector('u32', 40, 0, next), hashes: new Set(seed % 2 === 0 ? [5] : [2, 9, 30]) },
  ];
}

/** Every pair and triple of predicates, and each alone. */
function combinations(ps: ScanPredicate[]): ScanPredicate[][] {
  const out: ScanPredicate[][] = ps.map((p) => [p]);
  for (let a = 0; a < ps.length; a++)
    for (let b = 0; b < ps.length; b++) {
      if (b === a) continue;
      out.push([ps[a]!, ps[b]!]);
      for (let c = 0; c < ps.length; c++) if (c !== a && c !== b) out.push([ps[a]!, ps[b]!, ps[c]!]);
    }
  return out;
}

describe('scan kernels', () => {
  it('list and count exactly the positions that pass every predicate, for every kind, offset and range', () => {
    let compared = 0;
    for (const seed of [1, 2, 3]) {
      const ps = predicates(seed);
      const ranges: Array<[number, number]> = [];
      for (let first = 0; first < 9; first++)
        for (const end of [first, first + 1, first + 3, first + 5, 200 + first, LENGTH - first]) ranges.push([first, end]);
      for (const combo of combinations(ps)) {
        for (const [first, end] of ranges) {
          const expected = plainly(combo, first, end);
          const out = new Uint32Array(LENGTH);
          const n = matchRange(combo, first, end, out, false);
          expect([...out.subarray(0, n)], `seed ${seed}, [${first}, ${end})`).toEqual(expected);
          expect(matchRange(combo, first, end, new Uint32Array(LENGTH), true)).toBe(expected.length);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it('counts, scans, refines and tallies alike for each predicate', () => {
    for (const p of predicates(4)) {
      const expected = plainly([p], 3, LENGTH - 2);
      const out = new Uint32Array(LENGTH);
      expect(countRange(p, 3, LENGTH - 2)).toBe(expected.length);
      expect(scan(p, 3, LENGTH - 2, out)).toBe(expected.length);
      const all = Uint32Array.from({ length: LENGTH }, (_, i) => i);
      expect(tally(p, all, 500)).toBe(plainly([p], 0, 500).length);
      const kept = refine(p, all, 500);
      expect([...all.subarray(0, kept)]).toEqual(plainly([p], 0, 500));
    }
  });

  it('runs `between` after every pass of a listing, and matches nothing in an empty range', () => {
    const ps = predicates(5).slice(0, 3);
    let passes = 0;
    matchRange(ps, 0, LENGTH, new Uint32Array(LENGTH), false, () => passes++);
    expect(passes).toBe(3);
    expect(matchRange(ps, 10, 10, new Uint32Array(LENGTH), false)).toBe(0);
    expect(matchRange([], 0, LENGTH, new Uint32Array(LENGTH), true)).toBe(0);
  });
});
