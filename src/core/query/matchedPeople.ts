// The people of a state a matcher names (a suppression list, an earlier export), one byte a position
// of the state: 1 for each. A matcher reads values of the records; read for every person of the state
// that is 1.2M records for California at 10M (~12 s), 30 million nationally. So a matcher narrows
// whom it is asked about when it can:
// - a list with list keys (RecordMatcher.listKeys) in a dataset that has them (dataset/format/listKeys.ts):
//   only the records with a PID, phone or address key among the list's are read;
// - a matcher that names the only values its field can hold (an export's PIDs: RecordMatcher.only):
//   only the records whose hash in that field's vector is one of theirs.
// Everyone else's record is left unread; a matcher that can do neither reads every record.
import { fieldIndex } from '../../shared/fields';
import type { RecordMatcher } from '../audience/contract/engine';
import type { Dataset, StateRange } from '../dataset/read/dataset';
import type { ListKeyField } from '../dataset/format/listKeys';
import { uint32SetHas } from '../collections/uint32Table';

/** Candidates whose records are read at once. */
const READ_BATCH = 4096;

/** Sets (uint32Set) a caller builds once for every state: the values say nothing of whose state they are. */
export interface MatcherSets {
  /** The hashes of matcher.only's values; asked only when the matcher has `only` and its field a hash vector. */
  onlyHashes(): Uint32Array;
  /** All of matcher.listKeys()'s keys in one set; asked only when they are not null. */
  listKeys(): Uint32Array;
}

export function matchedMarks(dataset: Dataset, matcher: RecordMatcher, range: StateRange, sets: MatcherSets): Uint8Array {
  const indexes = matcher.fields.map((name) => fieldIndex(name));
  const ascending = [...new Set(indexes)].sort((a, b) => a - b);
  const at = indexes.map((i) => ascending.indexOf(i));
  const marks = new Uint8Array(range.count);
  const candidates = keyedCandidates(dataset, matcher, range, sets) ?? onlyCandidates(dataset, matcher, range, sets);
  if (!candidates) {
    let k = 0;
    for (const values of dataset.rangeValues(range.first, range.count, ascending)) {
      if (matcher.matches(at.map((i) => values[i]!))) marks[k] = 1;
      k++;
    }
    return marks;
  }
  for (let from = 0; from < candidates.length; from += READ_BATCH) {
    const positions = candidates.slice(from, from + READ_BATCH);
    dataset.valuesOf(positions, ascending).forEach((values, k) => {
      if (matcher.matches(at.map((i) => values[i]!))) marks[positions[k]! - range.first] = 1;
    });
  }
  return marks;
}

/** The positions whose list keys are among the matcher's, ascending; null when the matcher or the dataset has no keys. */
function keyedCandidates(dataset: Dataset, matcher: RecordMatcher, range: StateRange, sets: MatcherSets): number[] | null {
  const keys = matcher.listKeys?.();
  if (!keys) return null;
  const fields: ListKeyField[] = [];
  if (keys.pid.length > 0) fields.push('PID');
  if (keys.phone.length > 0) fields.push('PHONE', 'PHONE2', 'PHONE3');
  if (keys.address.length > 0) fields.push('ADDRESS');
  const set = sets.listKeys();
  // A field at a time: a national California's keys are 116 MB a field.
  const named = new Uint8Array(range.count);
  for (const field of fields) {
    const column = dataset.listKeys(field, range);
    if (!column) return null;
    for (let k = 0; k < range.count; k++) {
      // 0 is a record without a value (an empty phone); no list value hashes to it but by accident.
      const key = column[k]!;
      if (key !== 0 && uint32SetHas(set, key)) named[k] = 1;
    }
  }
  const candidates: number[] = [];
  for (let k = 0; k < range.count; k++) if (named[k]) candidates.push(range.first + k);
  return candidates;
}

/** The positions whose hash of matcher.only's field is one of its values', ascending; null when it has none to narrow by. */
function onlyCandidates(dataset: Dataset, matcher: RecordMatcher, range: StateRange, sets: MatcherSets): number[] | null {
  const narrowed = matcher.only && fieldIndex(matcher.only.field);
  if (narrowed === undefined || dataset.columnInfo(narrowed).encoding !== 'hash') return null;
  const set = sets.onlyHashes();
  const hashes = dataset.column(narrowed, range).data;
  const candidates: number[] = [];
  for (let pos = range.first, end = range.first + range.count; pos < end; pos++) if (uint32SetHas(set, hashes[pos]!)) candidates.push(pos);
  return candidates;
}
