// A filtered audience of a state stored by household is a set of PID ranks (query/pidOrder.ts):
// every page of it, at any skip and length, is the matches sorted by rank and cut there, whether
// the audience is kept as the set or, when that is smaller, as a list.
import { describe, expect, it } from 'vitest';
import { StateOrder } from '../../src/core/dataset/format/pidRanks';
import { RankSetSelection, orderedSelection } from '../../src/core/query/pidOrder';
import { ListSelection } from '../../src/core/query/selection';
import { randomFrom } from '../../src/core/audience/contract/listSteps';

/** A state of `count` people at `first` whose PID ranks are a shuffle, and `share` of them matched (ascending positions). */
function state(count: number, share: number, seed: number) {
  const random = randomFrom(seed);
  const order = Uint32Array.from({ length: count }, (_, k) => k);
  for (let k = count - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  const ranks = new Uint32Array(count);
  order.forEach((offset, rank) => (ranks[offset] = rank));
  const first = 1000;
  const matched = Array.from({ length: count }, (_, k) => first + k).filter(() => random() < share);
  // What a page must be: the matches by rank.
  const byRank = [...matched].sort((a, b) => ranks[a - first]! - ranks[b - first]!);
  return { first, stateOrder: new StateOrder(ranks, order), matched: Uint32Array.from(matched), byRank };
}

describe('a rank set', () => {
  it('pages the matches in PID order at every skip, across word and running-count boundaries', () => {
    for (const [count, share, seed] of [
      [5000, 0.5, 1],
      [4099, 0.9, 2],
      [70_000, 0.2, 3],
      [64 * 32 * 3 + 5, 1, 4],
    ] as const) {
      const { first, stateOrder, matched, byRank } = state(count, share, seed);
      const set = RankSetSelection.of(matched, matched.length, first, stateOrder);
      expect(set.total).toBe(byRank.length);
      const skips = [0, 1, 31, 32, 33, 2047, 2048, 2049, byRank.length - 101, byRank.length - 1, byRank.length];
      for (let s = 0; s < 200; s++) skips.push(Math.floor((((s * 7919) % 1000) / 1000) * byRank.length));
      for (const skip of skips.filter((k) => k >= 0))
        for (const limit of [1, 25, 100])
          expect(Array.from(set.page(skip, limit)), `skip ${skip} limit ${limit}`).toEqual(byRank.slice(skip, skip + limit));
      expect(Array.from(set.page(0, byRank.length))).toEqual(byRank);
      expect(set.page(byRank.length + 10, 10)).toHaveLength(0);
    }
  });

  it('is kept as a set when that is smaller than a list of the matches, else as the list', () => {
    const dense = state(40_000, 0.3, 5);
    const sparse = state(40_000, 0.01, 6);
    const kept = orderedSelection(dense.matched, dense.matched.length, dense.first, dense.stateOrder);
    const listed = orderedSelection(sparse.matched, sparse.matched.length, sparse.first, sparse.stateOrder);
    expect(kept).toBeInstanceOf(RankSetSelection);
    expect(kept.bytes).toBeLessThan(dense.matched.length * 4);
    expect(listed).toBeInstanceOf(ListSelection);
    expect(Array.from(listed.page(0, listed.total))).toEqual(sparse.byRank);
    expect(Array.from(kept.page(123, 77))).toEqual(dense.byRank.slice(123, 200));
  });

  it('of nobody, or of a state of nobody, has no pages', () => {
    const { first, stateOrder } = state(3000, 0.5, 7);
    expect(RankSetSelection.of([], 0, first, stateOrder).page(0, 10)).toHaveLength(0);
    const empty = new StateOrder(new Uint32Array(0), new Uint32Array(0));
    expect(RankSetSelection.of([], 0, first, empty).page(0, 10)).toHaveLength(0);
  });
});
