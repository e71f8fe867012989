// The embedded engine's counts of an audience's people by many fields at once, each field alone
// (engine.ts, groupCountsMany: a profile's hundred fields, a lookalike's model). The audience is
// selected once and its positions listed once, ascending, so each field is then one tight loop
// over a typed vector: no selection paged again a field, and the vector read in storage order.
// An audience that is its whole state is counted over the state's range with no list at all.
import type { FieldValue } from '../../shared/contract';
import type { GroupCount } from '../audience/contract/engine';
import type { ColumnVector, Dataset, PositionRange } from '../dataset/read/dataset';
import { claimFields, fieldCountJob, fieldTallies, tallied } from './fieldCountJob';
import { isShared, splitTallies } from './fieldCountSplit';
import { markedPositions } from './markKernels';
import { stateMarksOf } from './pidOrder';
import type { Selection } from './selection';
import type { TwoCoreScan } from './twoCoreScan';

/** The positions to count: a whole range, or an ascending list of positions. */
export type CountedPositions = { range: PositionRange; list: null } | { range: PositionRange; list: Uint32Array };

/** A list of positions in shared memory, so the scan worker can read it too (fieldCountSplit.ts). */
export function sharedList(positions: Uint32Array, n: number): Uint32Array {
  const list = new Uint32Array(new SharedArrayBuffer(4 * n));
  list.set(positions.subarray(0, n));
  return list;
}

/**
 * A selection's positions, ascending, in shared memory. A selection pages in PID order, which in a
 * file stored by household is scattered over the vectors; so its positions are marked a bit an
 * offset of the state `range` and read back in order. A walked audience has its bits already:
 * paging through its order to set them again cost a profile of California at 10M 24-79 ms after a
 * page, more than the scan it replaced.
 */
export function ascendingPositions(selection: Selection, range: PositionRange): Uint32Array {
  const marks = stateMarksOf(selection, range.first, range.count);
  return markedPositions(marks, selection.total, range.first, new Uint32Array(new SharedArrayBuffer(4 * selection.total)));
}

/** A list of an audience's positions (ascending, each once) to count: the whole range, with no list, when it holds everyone. */
export const countedPositions = (range: PositionRange, list: Uint32Array): CountedPositions =>
  list.length === range.count ? { range, list: null } : { range, list };

/** Numbers below this are tallied in an array (ages, small counts); others (negative, large, fractional) in a map. */
const ARRAY_TALLY = 65536;

/** Any other vector (four-byte integers): an array for small whole numbers, a map for the rest. */
function tallyOther(data: ArrayLike<number>, positions: CountedPositions, tally: Uint32Array, large: Map<number, number>): void {
  const count = (v: number): void => {
    if (v >= 0 && v < tally.length && (v | 0) === v) tally[v]!++;
    else large.set(v, (large.get(v) ?? 0) + 1);
  };
  const { range, list } = positions;
  if (list) for (let k = 0; k < list.length; k++) count(data[list[k]!]!);
  else for (let i = range.first, end = range.first + range.count; i < end; i++) count(data[i]!);
}

/** A field's counts from its tally (index: the vector's number) and the numbers tallied apart, in ascending order of the number (as groupCounts.ts gives them). */
function countsOf(column: ColumnVector, tally: Uint32Array, large: ReadonlyMap<number, number>): GroupCount[] {
  const out: GroupCount[] = [];
  for (let v = 0; v < tally.length; v++) if (tally[v]! > 0) out.push({ values: [decode(column, v)], count: tally[v]! });
  for (const [v, count] of large) out.push({ values: [decode(column, v)], count });
  return out;
}

const decode = (column: ColumnVector, n: number): FieldValue => (column.dict ? column.dict[n]! : n);

/** A field of a vector this module has no tally loop for, on this thread alone. */
function otherCounts(column: ColumnVector, positions: CountedPositions): GroupCount[] {
  const tally = new Uint32Array(column.dict ? Math.max(column.dict.length, 1) : ARRAY_TALLY);
  const large = new Map<number, number>();
  tallyOther(column.data, positions, tally, large);
  return countsOf(column, tally, large);
}

/**
 * Each field's counts (catalog indexes) of the positions, in the order the fields are given: the
 * one-byte and two-byte fields in one job (fieldCountJob.ts), the rest each alone. With a second core
 * up and enough to count (positions times fields, against the size a scan is split from), the job is
 * shared out with the scan worker when its vectors are in shared memory.
 */
export function countFields(
  dataset: Dataset,
  positions: CountedPositions,
  fieldIndexes: readonly number[],
  twoCores: TwoCoreScan | null = null,
): GroupCount[][] {
  const columns = fieldIndexes.map((index) => dataset.column(index, positions.range));
  for (const column of columns)
    if (column.encoding !== 'dict' && column.encoding !== 'value') throw new Error(`${column.field} has no values to count people by.`);
  const { range, list } = positions;
  const counted = list ? list.length : range.count;
  const inJob = columns.flatMap((c, f) => (tallied(c.data) ? [f] : []));
  const vectors = inJob.map((f) => columns[f]!.data as Uint8Array | Uint16Array);
  const split = twoCores?.running && counted * vectors.length >= twoCores.splitFrom && isShared(list) && vectors.every((v) => isShared(v));
  let tallies: Uint32Array[];
  if (split) tallies = splitTallies(twoCores, vectors, positions);
  else {
    const job = fieldCountJob(vectors, list, range.first, range.first + range.count, false);
    claimFields(job, false);
    tallies = fieldTallies(job);
  }
  const out: Array<GroupCount[] | undefined> = new Array(columns.length);
  inJob.forEach((f, k) => (out[f] = countsOf(columns[f]!, tallies[k]!, new Map())));
  return columns.map((column, f) => out[f] ?? otherCounts(column, positions));
}
