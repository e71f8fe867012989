// The rules of an audience over several states (docs/multi-state.md), pure, for the audience
// service (audienceService.ts), which asks the engine one state at a time: a sample of a size is
// shared out among the states in proportion to the people each holds before sampling, so the whole
// audience has the size asked; a page runs through the states in code order, across the boundary
// between two; the counts of every step add up.
import type { AudienceSteps } from '../../shared/contract';

/** Shares `size` among states in proportion to `counts` (largest remainders), none above its count. */
export function shareSample(size: number, counts: readonly number[]): number[] {
  const sum = counts.reduce((a, b) => a + b, 0);
  if (sum <= size) return [...counts];
  const exact = counts.map((c) => (c * size) / sum);
  const shares = exact.map(Math.floor);
  let left = size - shares.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left === 0) break;
    if (shares[i]! < counts[i]!) {
      shares[i]!++;
      left--;
    }
  }
  return shares;
}

/** Where a page of `limit` from `skip` falls over parts of the given sizes, part by part. */
export function pageSlices(sizes: readonly number[], skip: number, limit: number): Array<{ part: number; skip: number; limit: number }> {
  const slices: Array<{ part: number; skip: number; limit: number }> = [];
  let offset = 0;
  let want = limit;
  for (let part = 0; part < sizes.length && want > 0; part++) {
    const size = sizes[part]!;
    const localSkip = Math.max(0, skip - offset);
    if (localSkip < size) {
      const take = Math.min(want, size - localSkip);
      slices.push({ part, skip: localSkip, limit: take });
      want -= take;
    }
    offset += size;
  }
  return slices;
}

/** The counts of every step, added up state by state. */
export function addSteps(all: readonly AudienceSteps[]): AudienceSteps {
  const sum = (key: keyof AudienceSteps) => all.reduce((a, s) => a + s[key], 0);
  return {
    filtered: sum('filtered'),
    matched: sum('matched'),
    afterContact: sum('afterContact'),
    afterExclusions: sum('afterExclusions'),
    afterHouseholds: sum('afterHouseholds'),
    total: sum('total'),
  };
}
