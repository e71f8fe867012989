// Counts of an audience by two fields at once, drawn from the engine's group counts (engine.ts,
// groupCounts), the same on every engine. Each axis keeps the `max` values most people hold (a tie
// in count goes to the lower value: breakdown.ts, mostFrequentFirst) and lists them in the field's
// natural order: AGE in its bands, other integers by value, codes as the codebook orders them.
// A coordinate or a hashed field has a different value for nearly everyone and is refused.
import { AGE_BANDS, ageBandOf } from '../../../shared/ageBands';
import { compareCodes } from '../../../shared/codebook';
import type { FieldValue } from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import { FIELDS } from '../../../shared/fields';
import { byValue, mostFrequentFirst } from './breakdown';
import type { GroupCount } from './engine';

export interface CrossTabCounts {
  rowValues: FieldValue[];
  columnValues: FieldValue[];
  counts: number[][];
  /** Everyone counted, those whose values fell outside the kept rows or columns included. */
  total: number;
}

interface Axis {
  /** What a value counts under: an AGE band's index, else the value itself; null for an age in no band. */
  keyOf(value: FieldValue): FieldValue | null;
  label(key: FieldValue): FieldValue;
  /** The axis's natural order of two keys. */
  order(a: FieldValue, b: FieldValue): number;
}

/** Refuses a field that cannot be an axis (a coordinate, or a field the engine hashes), naming the axis. */
export function checkAxis(index: number, hashed: boolean, key: 'rows' | 'columns'): void {
  const def = FIELDS[index]!;
  if (def.type === 'number' || hashed)
    throw new AppError('invalid_request', `${def.name} has a different value for nearly everyone; choose a coded field.`, key);
}

function axisOf(index: number): Axis {
  const def = FIELDS[index]!;
  if (def.name === 'AGE')
    return {
      keyOf: (value) => {
        const band = AGE_BANDS.indexOf(ageBandOf(Number(value))!);
        return band < 0 ? null : band;
      },
      label: (key) => AGE_BANDS[key as number]!.label,
      order: byValue,
    };
  // Codes in their natural order (income bands low to high: src/shared/codebook.ts), not by count.
  return { keyOf: (value) => value, label: (key) => key, order: def.type === 'integer' ? byValue : compareCodes(def.name) };
}

const add = <K>(map: Map<K, number>, key: K, n: number): void => void map.set(key, (map.get(key) ?? 0) + n);

/** The `max` keys most people hold, in the axis's order. */
function keptKeys(totals: Map<FieldValue, number>, axis: Axis, max: number): FieldValue[] {
  return Array.from(totals, ([value, count]) => ({ value, count }))
    .sort(mostFrequentFirst)
    .slice(0, max)
    .map((e) => e.value)
    .sort(axis.order);
}

/** The cross-tab of two fields (catalog indexes, checked by checkAxis) from group counts of the pair; several states' rows add up. */
export function crossTabOf(rowIndex: number, columnIndex: number, groups: Iterable<GroupCount>, max: number): CrossTabCounts {
  const rows = axisOf(rowIndex);
  const columns = axisOf(columnIndex);
  const rowTotals = new Map<FieldValue, number>();
  const columnTotals = new Map<FieldValue, number>();
  const cells = new Map<FieldValue, Map<FieldValue, number>>();
  let total = 0;
  for (const { values, count } of groups) {
    total += count;
    const r = rows.keyOf(values[0]!);
    const c = columns.keyOf(values[1]!);
    if (r !== null) add(rowTotals, r, count);
    if (c !== null) add(columnTotals, c, count);
    if (r === null || c === null) continue;
    let row = cells.get(r);
    if (!row) cells.set(r, (row = new Map()));
    add(row, c, count);
  }
  const rowKeys = keptKeys(rowTotals, rows, max);
  const columnKeys = keptKeys(columnTotals, columns, max);
  return {
    rowValues: rowKeys.map(rows.label),
    columnValues: columnKeys.map(columns.label),
    counts: rowKeys.map((r) => columnKeys.map((c) => cells.get(r)?.get(c) ?? 0)),
    total,
  };
}
