// The embedded engine's counts of an audience's people by a few fields' values (engine.ts,
// groupCounts; audience/contract/breakdown.ts and audience/contract/crossTab.ts draw from them): tallied on the
// vectors' numbers (dictionary codes, integer values), one position at a time, and each distinct
// combination decoded once.
import type { FieldValue } from '../../shared/contract';
import type { GroupCount } from '../audience/contract/engine';
import type { ColumnVector, Dataset, PositionRange } from '../dataset/read/dataset';
import type { Selection } from './selection';

const PAGE = 65536;

/** A level of the tally: a field's number to the next field's level, or (the last field) to a count. */
type Tally = Map<number, Tally | number>;

/** Counts of the selection's people (positions of `range`, the audience's state) by the fields' values. */
export function groupCounts(dataset: Dataset, range: PositionRange, selection: Selection, fieldIndexes: readonly number[]): GroupCount[] {
  const columns = fieldIndexes.map((index) => dataset.column(index, range));
  for (const column of columns)
    if (column.encoding !== 'dict' && column.encoding !== 'value') throw new Error(`${column.field} has no values to count people by.`);
  if (columns.length === 1) return oneFieldCounts(columns[0]!, selection);
  const datas = columns.map((c) => c.data);
  const last = datas.length - 1;
  const root: Tally = new Map();
  // A page at a time, so a whole state never needs a second position list.
  for (let skip = 0; skip < selection.total; skip += PAGE) {
    const page = selection.page(skip, PAGE);
    for (let k = 0; k < page.length; k++) {
      const pos = page[k]!;
      let level = root;
      for (let f = 0; f < last; f++) {
        const v = datas[f]![pos]!;
        let next = level.get(v) as Tally | undefined;
        if (!next) level.set(v, (next = new Map()));
        level = next;
      }
      const v = datas[last]![pos]!;
      level.set(v, ((level.get(v) as number | undefined) ?? 0) + 1);
    }
  }
  const out: GroupCount[] = [];
  const walk = (level: Tally, values: FieldValue[]): void => {
    const column = columns[values.length]!;
    for (const [n, next] of level) {
      const here = [...values, decode(column, n)];
      if (typeof next === 'number') out.push({ values: here, count: next });
      else walk(next, here);
    }
  };
  walk(root, []);
  return out;
}

/** Numbers below this are tallied in an array (dictionary codes, ages, small counts); larger ones in a map. */
const ARRAY_TALLY = 65536;

/**
 * One field's counts (a breakdown, a profile, a lookalike's model): tallied in an array indexed by the
 * vector's number, a few times faster than a map a position, for what a profile of a hundred fields does.
 */
function oneFieldCounts(column: ColumnVector, selection: Selection): GroupCount[] {
  const data = column.data;
  const tally = new Float64Array(column.dict ? column.dict.length : ARRAY_TALLY);
  const large = new Map<number, number>();
  for (let skip = 0; skip < selection.total; skip += PAGE) {
    const page = selection.page(skip, PAGE);
    for (let k = 0; k < page.length; k++) {
      const v = data[page[k]!]!;
      if (v >= 0 && v < tally.length && (v | 0) === v) tally[v]!++;
      else large.set(v, (large.get(v) ?? 0) + 1);
    }
  }
  const out: GroupCount[] = [];
  for (let v = 0; v < tally.length; v++) if (tally[v]! > 0) out.push({ values: [decode(column, v)], count: tally[v]! });
  for (const [v, count] of large) out.push({ values: [decode(column, v)], count });
  return out;
}

const decode = (column: ColumnVector, n: number): FieldValue => (column.dict ? column.dict[n]! : n);
