// The lookalike step's choice (listSteps.ts, keepMostAlike): the `top` highest scores, ties going to
// the earlier (lower-PID) ids, kept in list order; everyone when `top` is at least the list.
import { describe, expect, it } from 'vitest';
import { keepMostAlike } from '../../src/core/audience/contract/listSteps';

/** The same choice by sorting: score descending, then position ascending; then back to list order. */
function bySorting(ids: number[], scores: Map<number, number>, top: number): number[] {
  const ranked = ids.map((id, k) => ({ id, k, s: scores.get(id)! })).sort((a, b) => b.s - a.s || a.k - b.k);
  return ranked
    .slice(0, top)
    .sort((a, b) => a.k - b.k)
    .map((r) => r.id);
}

describe('keepMostAlike', () => {
  it('keeps the highest scores, the lower PID of equal ones, in PID order', () => {
    const list = Uint32Array.from([10, 11, 12, 13, 14, 15]);
    const scores = new Map([
      [10, 5],
      [11, 9],
      [12, 5],
      [13, 5],
      [14, -2],
      [15, 9],
    ]);
    const n = keepMostAlike(list, 6, (id) => scores.get(id)!, 3);
    expect(Array.from(list.subarray(0, n))).toEqual([10, 11, 15]);
  });

  it('agrees with a sort on many random lists with many ties', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let round = 0; round < 200; round++) {
      const size = 1 + Math.floor(random() * 60);
      const ids = Array.from({ length: size }, (_, k) => 100 + k * 3);
      const scores = new Map(ids.map((id) => [id, Math.floor(random() * 7) - 3]));
      const top = 1 + Math.floor(random() * (size + 3));
      const list = Uint32Array.from(ids);
      const n = keepMostAlike(list, size, (id) => scores.get(id)!, top);
      expect(Array.from(list.subarray(0, n))).toEqual(bySorting(ids, scores, top));
    }
  });
});
