// Match and append's candidates from vectors alone (docs/match.md, "Speed"): the records whose list
// key (dataset/format/listKeys.ts) of a PID, a phone or an address is one of a customer file's, with
// all five of their keys and the values the vectors hold exactly (dictionary codes, integers,
// millionths of a degree). Reading a candidate's record costs its block's decompression (16 records, 32 in older files),
// and the candidates of a 100,000-row file touch nearly every block, so none is read here; the matcher
// reads records only where a vector cannot answer (recordValues).
import { FIELDS, fieldIndex } from '../../shared/fields';
import type { KeyedCandidates, ListKeySets } from '../audience/contract/engine';
import { uint32Set, uint32SetHas } from '../collections/uint32Table';
import type { Dataset, StateRange } from '../dataset/read/dataset';
import { LIST_KEY_FIELDS, type ListKeyField } from '../dataset/format/listKeys';

/** Records whose values are read at once. */
const READ_BATCH = 4096;
const MILLION = 1_000_000;

/** The list keys of every state's records that are among `keys`; null when the dataset has no usable list keys. */
export function keyedCandidates(dataset: Dataset, keys: ListKeySets, fields: readonly string[]): KeyedCandidates | null {
  if (!dataset.hasListKeys) return null;
  const set = uint32Set([...keys.pid, ...keys.phone, ...keys.address]);
  const asked = new Set<ListKeyField>();
  if (keys.pid.length > 0) asked.add('PID');
  if (keys.phone.length > 0) ['PHONE', 'PHONE2', 'PHONE3'].forEach((f) => asked.add(f as ListKeyField));
  if (keys.address.length > 0) asked.add('ADDRESS');
  const indexes = fields.map((name) => fieldIndex(name));
  const exact = indexes.map((index) => ['dict', 'value', 'micro'].includes(dataset.columnInfo(index).encoding));
  const refs: number[] = [];
  const keyParts: Uint32Array[] = [];
  const values: Array<Array<string | number> | null> = exact.map((e) => (e ? [] : null));
  for (const range of dataset.stateCounts()) {
    const found = stateCandidates(dataset, range, set, asked);
    if (!found) return null;
    if (found.positions.length === 0) continue;
    for (const p of found.positions) refs.push(p);
    keyParts.push(found.keys);
    indexes.forEach((index, f) => {
      const out = values[f];
      if (out) for (const v of vectorValues(dataset, index, range, found.positions)) out.push(v);
    });
  }
  const keysOut = new Uint32Array(refs.length * LIST_KEY_FIELDS.length);
  let at = 0;
  for (const part of keyParts) {
    keysOut.set(part, at);
    at += part.length;
  }
  return { refs: Uint32Array.from(refs), keys: keysOut, values };
}

/** A state's candidates (positions, ascending) and their five keys each; null when its keys cannot be read. */
function stateCandidates(
  dataset: Dataset,
  range: StateRange,
  set: Uint32Array,
  asked: ReadonlySet<ListKeyField>,
): { positions: number[]; keys: Uint32Array } | null {
  // A field at a time, kept for the state: a candidate's keys of every field are reported.
  const columns: Array<Uint32Array | null> = [];
  const named = new Uint8Array(range.count);
  for (const field of LIST_KEY_FIELDS) {
    // The PID's key always: 0 there is a record whose PID is not one, which a matcher leaves out.
    if (!asked.has(field) && field !== 'PID') {
      columns.push(null);
      continue;
    }
    const column = dataset.listKeys(field, range);
    if (!column) return null;
    columns.push(column);
    if (!asked.has(field)) continue;
    for (let k = 0; k < range.count; k++) {
      // 0 is a record without a value (an empty phone); no list value hashes to it but by accident.
      const key = column[k]!;
      if (key !== 0 && uint32SetHas(set, key)) named[k] = 1;
    }
  }
  const positions: number[] = [];
  for (let k = 0; k < range.count; k++) if (named[k]) positions.push(range.first + k);
  const keys = new Uint32Array(positions.length * LIST_KEY_FIELDS.length);
  positions.forEach((p, i) => {
    columns.forEach((column, f) => {
      if (column) keys[i * LIST_KEY_FIELDS.length + f] = column[p - range.first]!;
    });
  });
  return { positions, keys };
}

/** A field's values at the positions (of one state), from its vector: the dictionary's strings, the integers, the degrees. */
function vectorValues(dataset: Dataset, index: number, range: StateRange, positions: readonly number[]): Array<string | number> {
  const { encoding, data, dict } = dataset.column(index, range);
  if (encoding === 'dict') return positions.map((p) => dict![data[p]!]!);
  if (encoding === 'micro') return positions.map((p) => data[p]! / MILLION);
  return positions.map((p) => data[p]!);
}

/** The values of `fields` (catalog names) of the records at `positions`, in the order given. */
export function recordValues(
  dataset: Dataset,
  positions: ArrayLike<number>,
  fields: readonly string[],
): Array<ReadonlyArray<string | number>> {
  const indexes = fields.map((name) => fieldIndex(name));
  if (indexes.some((i) => i < 0 || FIELDS[i] === undefined)) throw new Error('recordValues: a field is not in the catalog.');
  const ascending = [...new Set(indexes)].sort((a, b) => a - b);
  const at = indexes.map((i) => ascending.indexOf(i));
  // Read in position order, so a block is decompressed once however the caller ordered them.
  const order = Array.from({ length: positions.length }, (_, k) => k).sort((a, b) => positions[a]! - positions[b]!);
  const out = new Array<ReadonlyArray<string | number>>(positions.length);
  for (let from = 0; from < order.length; from += READ_BATCH) {
    const batch = order.slice(from, from + READ_BATCH);
    dataset
      .valuesOf(
        batch.map((k) => positions[k]!),
        ascending,
      )
      .forEach((values, j) => (out[batch[j]!] = at.map((i) => values[i]!)));
  }
  return out;
}
