// The embedded engine's primitives for the list controls (audience/contract/listSteps.ts runs the steps):
// contact's tests read from the dataset's vectors, and each position's coordinates.
import { fieldIndex } from '../../shared/fields';
import type { ColumnVector, Dataset, StateRange } from '../dataset/read/dataset';

/** A test "this record's field is empty", from its vector alone (a hashed field's empty string hashes to 0). */
function emptyTest(column: ColumnVector): (pos: number) => boolean {
  const data = column.data;
  if (column.encoding === 'hash') return (pos) => data[pos] === 0;
  if (column.encoding === 'dict') {
    const empty = new Uint8Array(column.dict!.length);
    column.dict!.forEach((v, code) => (empty[code] = v === '' ? 1 : 0));
    return (pos) => empty[data[pos]!] === 1;
  }
  return () => false;
}

/** A test "this record's field holds `value`", for a dictionary field (DPV, VACANT). */
function equalsTest(column: ColumnVector, value: string): (pos: number) => boolean {
  if (column.encoding !== 'dict') throw new Error(`${column.field} is not a dictionary field.`);
  const code = column.dict!.indexOf(value);
  const data = column.data;
  return code < 0 ? () => false : (pos) => data[pos] === code;
}

/** callable: a phone (PHONE, PHONE2 or PHONE3) that is not empty and whose paired DNC flag is empty. */
export function callableTest(dataset: Dataset, range: StateRange): (pos: number) => boolean {
  const pairs = [
    ['PHONE', 'DNC'],
    ['PHONE2', 'DNC2'],
    ['PHONE3', 'DNC3'],
  ].map(([phone, flag]) => ({
    noPhone: emptyTest(dataset.column(fieldIndex(phone!), range)),
    noFlag: emptyTest(dataset.column(fieldIndex(flag!), range)),
  }));
  return (pos) => pairs.some((p) => !p.noPhone(pos) && p.noFlag(pos));
}

/** deliverable: DPV is "Y" and VACANT is not "Y". */
export function deliverableTest(dataset: Dataset, range: StateRange): (pos: number) => boolean {
  const confirmed = equalsTest(dataset.column(fieldIndex('DPV'), range), 'Y');
  const vacant = equalsTest(dataset.column(fieldIndex('VACANT'), range), 'Y');
  return (pos) => confirmed(pos) && !vacant(pos);
}
