// The list controls of extensions.md over an audience's matched people, in their order, written
// once for every engine: `near` keeps the people within reach (they are the matched ones), then
// contact, inclusions and exclusions narrow, then the lookalikes of `like` (the seed's people left
// out, the `top` highest scores kept), then one person a household, then the sample. An engine supplies
// the primitives (ListPrimitives: where each candidate lives, who is callable or deliverable, whom
// an exclusion names, households) and runListSteps keeps the same people, with the same counts, on
// each. Candidates are ids in PID order (the embedded engine's positions in a selection's order,
// ClickHouse's row numbers), so "the lowest PID" is the first of a household in the list and "PID
// order" is list order. Synchronous: the embedded engine counts on its hot path with it; an engine
// that asks another process fetches its primitives first.
import type { AudienceSteps } from '../../../shared/contract';
import { EARTH_RADIUS_MILES, type Sample } from '../../../shared/listControls';
import type { Exclusion, ResolvedControls, ResolvedLike } from './engine';

/** What runListSteps asks of an engine about its candidates; each is asked only when its step runs. */
export interface ListPrimitives {
  /** Where the arrays below start: a candidate `id` is at `id - first` (the embedded engine's state's first position; else 0). */
  readonly first: number;
  /** Each candidate's latitude and longitude, interleaved (`near`). */
  coordinates(): Float64Array;
  /** A test "this person has a phone that may be called" (`contact.phone`). */
  callable(): (id: number) => boolean;
  /** A test "this person's address takes mail" (`contact.mail`). */
  deliverable(): (id: number) => boolean;
  /** A test "the `index`-th set of people the controls name (controls.ts, namedPeople) names this person". */
  excluded(exclusion: Exclusion, index: number): (id: number) => boolean;
  /** Each candidate's lookalike score (`like`): the sum of the weights of its values, a whole number. */
  likeScores(like: ResolvedLike): (id: number) => number;
  /** A number for each candidate's household, the same exactly for one household (`households: "one"`). */
  households(): Uint32Array;
  /** Throws once the query's time budget is spent; asked before each exclusion. */
  checkBudget?(): void;
}

/**
 * extensions.md's steps over `list` (candidate ids ascending in PID order, narrowed in place): the
 * people kept (a view of the start of `list`) and the count after each step.
 */
export function runListSteps(
  list: Uint32Array,
  controls: ResolvedControls,
  source: ListPrimitives,
): { kept: Uint32Array; steps: AudienceSteps } {
  let n = list.length;
  // Consumer opt-outs (an exclusion marked `withdrawn`) go before every step: no count ever holds them.
  controls.exclusions.forEach((exclusion, index) => {
    if (exclusion.kind !== 'people' || !exclusion.withdrawn) return;
    const excluded = source.excluded(exclusion, index);
    n = keepWhere(list, n, (id) => !excluded(id));
  });
  const filtered = n;
  if (controls.near) n = keepNear(list, n, source.coordinates(), source.first, controls.near);
  // `near` is a filter of place: the people it keeps are the matched ones.
  const matched = n;
  if (controls.contact.phone) n = keepWhere(list, n, source.callable());
  if (controls.contact.mail) n = keepWhere(list, n, source.deliverable());
  const afterContact = n;
  const named = controls.exclusions.length;
  if (controls.inclusions.length > 0) {
    const tests = controls.inclusions.map((inclusion, k) => {
      source.checkBudget?.();
      return source.excluded(inclusion, named + k);
    });
    n = keepWhere(list, n, (id) => tests.some((names) => names(id)));
  }
  controls.exclusions.forEach((exclusion, index) => {
    if (exclusion.kind === 'people' && exclusion.withdrawn) return;
    source.checkBudget?.();
    const excluded = source.excluded(exclusion, index);
    n = keepWhere(list, n, (id) => !excluded(id));
  });
  const afterExclusions = n;
  if (controls.like) {
    source.checkBudget?.();
    const seed = source.excluded(controls.like.seed, named + controls.inclusions.length);
    n = keepWhere(list, n, (id) => !seed(id));
    n = keepMostAlike(list, n, source.likeScores(controls.like), controls.like.top);
  }
  if (controls.households === 'one') n = onePerHousehold(list, n, source.households(), source.first);
  const afterHouseholds = n;
  if (controls.sample) n = applySample(list, n, controls.sample);
  return { kept: list.subarray(0, n), steps: { filtered, matched, afterContact, afterExclusions, afterHouseholds, total: n } };
}

/**
 * Keeps, in place and in list (PID) order, the `top` ids of the first `n` with the highest scores; of
 * equal scores the earlier (lower PID) ones. Returns how many.
 */
export function keepMostAlike(list: Uint32Array, n: number, score: (id: number) => number, top: number): number {
  if (top >= n) return n;
  const scores = new Float64Array(n);
  for (let k = 0; k < n; k++) scores[k] = score(list[k]!);
  // The top-th highest score: everyone above it is kept, and of those equal to it the first ones.
  const threshold = nthSmallest(Float64Array.from(scores), n - top);
  let above = 0;
  for (let k = 0; k < n; k++) if (scores[k]! > threshold) above++;
  let atThreshold = top - above;
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const s = scores[k]!;
    if (s > threshold || (s === threshold && atThreshold-- > 0)) list[kept++] = list[k]!;
  }
  return kept;
}

/**
 * The k-th smallest of `values` (0-based; reordered in place): what sorting them and taking [k] gives,
 * found by quickselect instead, so a lookalike of a state of millions does not sort all its scores.
 */
export function nthSmallest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    // Hoare's partition around the middle value: [lo, j] <= pivot <= [i, hi].
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}

/** Keeps, in place, the first `n` ids of `list` that `keep` accepts; returns how many. */
export function keepWhere(list: Uint32Array, n: number, keep: (pos: number) => boolean): number {
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const pos = list[k]!;
    if (keep(pos)) list[kept++] = pos;
  }
  return kept;
}

/** Keeps the first (lowest-PID) id of each household; `households` numbers the candidates from `first`. */
export function onePerHousehold(list: Uint32Array, n: number, households: Uint32Array, first: number): number {
  let most = 0;
  for (let i = 0; i < households.length; i++) if (households[i]! > most) most = households[i]!;
  const taken = new Uint8Array(most + 1);
  return keepWhere(list, n, (pos) => {
    const h = households[pos - first]!;
    if (taken[h] === 1) return false;
    taken[h] = 1;
    return true;
  });
}

/** mulberry32 over a seed folded to 32 bits: small, fast and the same on every machine. */
export function randomFrom(seed: number): () => number {
  let a = (seed >>> 0) ^ Math.imul(Math.floor(seed / 0x1_0000_0000) >>> 0, 0x9e3779b9);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The sample, in place: every n-th from the first, or `size` chosen uniformly by the seed, kept in PID order. */
export function applySample(list: Uint32Array, n: number, sample: Sample): number {
  if ('every' in sample) {
    let kept = 0;
    for (let k = 0; k < n; k += sample.every) list[kept++] = list[k]!;
    return kept;
  }
  if (sample.size >= n) return n;
  // A partial Fisher-Yates shuffle of the indexes picks `size` of them, each subset equally likely.
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  const random = randomFrom(sample.seed);
  for (let k = 0; k < sample.size; k++) {
    const j = k + Math.floor(random() * (n - k));
    const t = order[k]!;
    order[k] = order[j]!;
    order[j] = t;
  }
  const chosen = order.subarray(0, sample.size).sort();
  for (let k = 0; k < chosen.length; k++) list[k] = list[chosen[k]!]!;
  return chosen.length;
}

const RADIANS = Math.PI / 180;

/** Keeps the ids within `miles` of a point (haversine great-circle distance, extensions.md's Earth radius). */
export function keepNear(
  list: Uint32Array,
  n: number,
  coordinates: Float64Array,
  first: number,
  near: { lat: number; lon: number; miles: number },
): number {
  const lat0 = near.lat * RADIANS;
  const lon0 = near.lon * RADIANS;
  const cosLat0 = Math.cos(lat0);
  // The haversine of the largest angle allowed: compare before the arcsine, which is monotonic.
  const maxHav = Math.sin(Math.min(Math.PI, near.miles / EARTH_RADIUS_MILES) / 2) ** 2;
  return keepWhere(list, n, (pos) => {
    const i = (pos - first) * 2;
    const lat = coordinates[i]! * RADIANS;
    const lon = coordinates[i + 1]! * RADIANS;
    const hav = Math.sin((lat - lat0) / 2) ** 2 + cosLat0 * Math.cos(lat) * Math.sin((lon - lon0) / 2) ** 2;
    return hav <= maxHav;
  });
}
