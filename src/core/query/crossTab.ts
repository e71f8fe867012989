// Counts of an audience by two fields at once. Each field's values are in their natural order (AGE
// in its bands, other integers by value, codes as the codebook orders them), and at most `max` of
// each are kept, the most frequent.
import { AGE_BANDS, ageBandOf } from '../../shared/ageBands';
import { compareCodes } from '../../shared/codebook';
import { AppError } from '../../shared/errors';
import { FIELDS } from '../../shared/fields';
import type { CrossTabCounts } from '../audience/engine';
import type { Dataset, PositionRange } from '../dataset/dataset';
import type { Selection } from './selection';

interface Axis {
  /** The value's key (a code, a value or an AGE band's index); -1 for a value outside every band. */
  keyAt(pos: number): number;
  label(key: number): string | number;
  order(a: { key: number; count: number }, b: { key: number; count: number }): number;
}

function axisOf(dataset: Dataset, range: PositionRange, index: number, key: 'rows' | 'columns'): Axis {
  const def = FIELDS[index]!;
  const column = dataset.column(index, range);
  if (def.type === 'number' || column.encoding === 'hash')
    throw new AppError('invalid_request', `${def.name} has a different value for nearly everyone; choose a coded field.`, key);
  const data = column.data;
  if (def.name === 'AGE')
    return { keyAt: (pos) => AGE_BANDS.indexOf(ageBandOf(data[pos]!)!), label: (k) => AGE_BANDS[k]!.label, order: (a, b) => a.key - b.key };
  if (column.dict) {
    const dict = column.dict;
    // Codes in their natural order (income bands low to high: src/shared/codebook.ts), not by count.
    const compare = compareCodes(def.name);
    return { keyAt: (pos) => data[pos]!, label: (k) => dict[k]!, order: (a, b) => compare(dict[a.key]!, dict[b.key]!) };
  }
  return { keyAt: (pos) => data[pos]!, label: (k) => k, order: (a, b) => a.key - b.key };
}

/** Calls `visit` with each position of the selection, a page at a time (no second full position list). */
function eachPosition(selection: Selection, visit: (pos: number) => void): void {
  for (let skip = 0; skip < selection.total; skip += 65536) {
    const page = selection.page(skip, 65536);
    for (let k = 0; k < page.length; k++) visit(page[k]!);
  }
}

/** The `max` most frequent keys of an axis, in the axis's order. */
function keptKeys(counts: Map<number, number>, axis: Axis, max: number): number[] {
  const top = [...counts]
    .filter(([key]) => key >= 0)
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || a.key - b.key)
    .slice(0, max);
  return top.sort(axis.order).map((e) => e.key);
}

/** Counts of the selection's people (positions of `range`, the audience's state) by two fields' values. */
export function crossTabCounts(
  dataset: Dataset,
  range: PositionRange,
  selection: Selection,
  rowIndex: number,
  columnIndex: number,
  max: number,
): CrossTabCounts {
  const rows = axisOf(dataset, range, rowIndex, 'rows');
  const columns = axisOf(dataset, range, columnIndex, 'columns');
  const rowCounts = new Map<number, number>();
  const columnCounts = new Map<number, number>();
  eachPosition(selection, (pos) => {
    const r = rows.keyAt(pos);
    const c = columns.keyAt(pos);
    rowCounts.set(r, (rowCounts.get(r) ?? 0) + 1);
    columnCounts.set(c, (columnCounts.get(c) ?? 0) + 1);
  });
  const rowKeys = keptKeys(rowCounts, rows, max);
  const columnKeys = keptKeys(columnCounts, columns, max);
  const rowAt = new Map(rowKeys.map((k, i) => [k, i]));
  const columnAt = new Map(columnKeys.map((k, i) => [k, i]));
  const counts = rowKeys.map(() => new Array<number>(columnKeys.length).fill(0));
  eachPosition(selection, (pos) => {
    const r = rowAt.get(rows.keyAt(pos));
    const c = columnAt.get(columns.keyAt(pos));
    if (r !== undefined && c !== undefined) counts[r]![c]!++;
  });
  return { rowValues: rowKeys.map(rows.label), columnValues: columnKeys.map(columns.label), counts, total: selection.total };
}
