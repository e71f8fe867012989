// Turns normalized filters into predicates over a dataset's field vectors. A string filter becomes
// a mask over dictionary codes; an integer filter a mask over values when the vector is narrow
// (one lookup per record), or a list of bands otherwise.
import type { IntBand, NormalizedFilter } from '../../shared/audienceRequest';
import { stringHash, type Vector } from '../dataset/codec/columnVector';
import type { Dataset, PositionRange } from '../dataset/read/dataset';
import { valueTest, type ScanPredicate } from './scanKernels';

export type Predicate = ScanPredicate & {
  /** For hashed fields: the non-empty values a candidate's record must really hold. */
  verify?: { index: number; values: Set<string> };
};

/**
 * Values searched in a dictionary one at a time before its value -> code map is built. Building
 * the map of a 32,000-entry dictionary (ZIP at 10M) took 10-20 ms on the first use of the field,
 * a third of that first count; finding a few values by a search of its text takes ~0.1 ms each and
 * makes no string of the others (dataset/codec/dictionaryText.ts).
 */
const SCANS_BEFORE_MAP = 64;

/** Dictionary codes of string fields' values: a search of the dictionary at first, a map once a field is used often. */
export class DictionaryIndex {
  private readonly maps = new Map<number, Map<string, number>>();
  private readonly scans = new Map<number, number>();
  constructor(private readonly dataset: Dataset) {}

  /** The code of `value` in field `index`'s dictionary, or undefined when no record holds it. */
  code(index: number, value: string): number | undefined {
    const map = this.maps.get(index);
    if (map) return map.get(value);
    const { dictionary } = this.dataset.columnInfo(index);
    if (!dictionary) return undefined;
    const scans = (this.scans.get(index) ?? 0) + 1;
    if (scans <= SCANS_BEFORE_MAP) {
      this.scans.set(index, scans);
      // Dictionary entries are distinct, so the first match is the code.
      const code = dictionary.indexOf(value);
      return code < 0 ? undefined : code;
    }
    const built = new Map(dictionary.values().map((v, code) => [v, code]));
    this.maps.set(index, built);
    return built.get(value);
  }

  /** How many codes field `index` has. */
  size(index: number): number {
    return this.dataset.columnInfo(index).dictionary?.size ?? 0;
  }
}

function maskForValues(data: Vector, bands: IntBand[]): Uint8Array | null {
  const size = data instanceof Uint8Array ? 0x100 : data instanceof Uint16Array ? 0x10000 : 0;
  if (size === 0) return null;
  const mask = new Uint8Array(size);
  for (const { lo, hi } of bands) {
    for (let v = lo, end = Math.min(hi, size - 1); v <= end; v++) mask[v] = 1;
  }
  return mask;
}

/** A predicate over the positions of `range`, or null when no record can match (a value absent from the dataset). */
export function compilePredicate(
  dataset: Dataset,
  dictionaries: DictionaryIndex,
  filter: NormalizedFilter,
  range: PositionRange,
): Predicate | null {
  const column = dataset.column(filter.index, range);
  if (filter.kind === 'string' && column.encoding === 'hash') {
    const nonEmpty = filter.values.filter((v) => v !== '');
    const verify = nonEmpty.length ? { index: filter.index, values: new Set(nonEmpty) } : undefined;
    return { data: column.data, hashes: new Set(filter.values.map(stringHash)), verify };
  }
  if (filter.kind === 'string') {
    const mask = new Uint8Array(Math.max(1, dictionaries.size(filter.index)));
    let any = false;
    for (const value of filter.values) {
      const code = dictionaries.code(filter.index, value);
      if (code !== undefined) {
        mask[code] = 1;
        any = true;
      }
    }
    return any ? { data: column.data, mask } : null;
  }
  const mask = maskForValues(column.data, filter.bands);
  return mask ? { data: column.data, mask } : { data: column.data, bands: filter.bands };
}

/** Positions sampled evenly over a range to guess how many records a predicate keeps. */
const SAMPLES = 512;

/**
 * The predicates, those that keep the fewest records of [first, end) first (guessed from evenly
 * spaced positions): the first one is a scan of the whole range, each next one reads only what the
 * ones before kept, so a narrow filter named last no longer waits on a broad one named first. The
 * answer is the same in any order (an intersection, kept in ascending positions).
 */
export function bySelectivity(predicates: Predicate[], first: number, end: number): Predicate[] {
  if (predicates.length < 2 || end <= first) return predicates;
  const step = Math.max(1, Math.floor((end - first) / SAMPLES));
  const kept = predicates.map((p) => {
    const test = valueTest(p);
    let n = 0;
    for (let i = first; i < end; i += step) if (test(p.data[i]!)) n++;
    return n;
  });
  return predicates
    .map((p, k) => ({ p, k }))
    .sort((a, b) => kept[a.k]! - kept[b.k]! || a.k - b.k)
    .map(({ p }) => p);
}

/** Candidates whose records are read at a time: a parsed record is ~20 KB of heap, so memory stays bounded. */
const VERIFY_BATCH = 2048;

/**
 * Hash matches are candidates: keeps, in place, those whose records really hold one of the values
 * (or are empty where "" was asked for). Runs after every other filter, on the survivors. Only an
 * empty value hashes to 0, so a candidate whose hashes are all 0 is settled without its record: a
 * filter of "" and a value matched every empty record, and reading them all at once (a million in
 * California at 10M) ran the process out of memory. The rest are read a batch at a time, within
 * the query's budget.
 */
export function verifyHashed(
  dataset: Dataset,
  predicates: Predicate[],
  list: Uint32Array,
  n: number,
  checkBudget: () => void = () => undefined,
): number {
  const checks = predicates.filter((p) => p.verify);
  if (checks.length === 0 || n === 0) return n;
  const settled = (pos: number) => checks.every((p) => p.data[pos] === 0);
  let kept = 0;
  for (let from = 0; from < n; from += VERIFY_BATCH) {
    checkBudget();
    const to = Math.min(n, from + VERIFY_BATCH);
    const unsettled: number[] = [];
    for (let k = from; k < to; k++) if (!settled(list[k]!)) unsettled.push(list[k]!);
    const records = unsettled.length > 0 ? dataset.fullRows(unsettled) : [];
    let r = 0;
    // Written at or before where it is read: kept <= k.
    for (let k = from; k < to; k++) {
      const pos = list[k]!;
      if (settled(pos)) {
        list[kept++] = pos;
        continue;
      }
      const record = records[r++]!;
      const ok = checks.every((p) => {
        const value = record[p.verify!.index] as string;
        return value === '' ? p.hashes!.has(0) : p.verify!.values.has(value);
      });
      if (ok) list[kept++] = pos;
    }
  }
  return kept;
}
