// A staged row's header (staging.ts): 32-bit words kept beside the row's text in the staging file,
// saying where the row came from (reader, number within the reader), its key (STATE's two
// character codes, then the PID's 128 bits as four words), its text's length, its household (ZIP
// as a number, the ADDRESS and HHID hashes) and what the dataset writer needs of the record besides
// its text (recordExtras.ts). The file's order within a bucket compares the household words, then
// the PID's.
import { KEY_HOUSEHOLD_AT, KEY_LENGTH } from '../read/batch';
import { RECORD_EXTRA_WORDS } from '../../dataset/write/recordExtras';
import { hex8 } from './pidFingerprints';

export const READER = 0;
export const NUMBER = 1;
export const KEY = 2;
export const KEY_WORDS = 5;
export const LENGTH = 7;
export const HOUSEHOLD = 8;
const HOUSEHOLD_WORDS = 3;
export const HHID_HASH = HOUSEHOLD + 2;
export const EXTRAS = HOUSEHOLD + HOUSEHOLD_WORDS;
export const HEADER_WORDS = EXTRAS + RECORD_EXTRA_WORDS;
export const HEADER_BYTES = HEADER_WORDS * 4;

/**
 * Fills `header` for the k-th row of a batch: `keys` the batch's keys (read/batch.ts, rowKey:
 * KEY_LENGTH each), `extras` its extras (RECORD_EXTRA_WORDS each), `length` the row's text bytes.
 */
export function writeHeader(
  header: Uint32Array,
  reader: number,
  number: number,
  keys: string,
  k: number,
  length: number,
  extras: Uint32Array,
): void {
  const key = k * KEY_LENGTH;
  header[READER] = reader;
  header[NUMBER] = number;
  header[KEY] = (keys.charCodeAt(key) << 8) | keys.charCodeAt(key + 1);
  for (let j = 1; j < KEY_WORDS; j++) header[KEY + j] = hex8(keys, key + 2 + 8 * (j - 1));
  header[LENGTH] = length;
  for (let j = 0; j < HOUSEHOLD_WORDS; j++) header[HOUSEHOLD + j] = hex8(keys, key + KEY_HOUSEHOLD_AT + 8 * j);
  header.set(extras.subarray(k * RECORD_EXTRA_WORDS, (k + 1) * RECORD_EXTRA_WORDS), EXTRAS);
}

/** Orders the rows at offsets `a` and `b` of `headers` as the file does: household, then PID. */
export function compareInFile(headers: Uint32Array, a: number, b: number): number {
  for (let j = 0; j < HOUSEHOLD_WORDS; j++) {
    const d = headers[a + HOUSEHOLD + j]! - headers[b + HOUSEHOLD + j]!;
    if (d !== 0) return d;
  }
  for (let j = 1; j < KEY_WORDS; j++) {
    const d = headers[a + KEY + j]! - headers[b + KEY + j]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Orders rows `a` and `b` of `pids` (four 32-bit words a PID) as their PIDs. */
export function comparePids(pids: Uint32Array, a: number, b: number): number {
  for (let j = 0; j < 4; j++) {
    const d = pids[a * 4 + j]! - pids[b * 4 + j]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Where each row's text starts among its bucket's texts, which follow one another in arrival order as the headers do. */
export function textStarts(headers: Uint32Array): Float64Array {
  const rows = headers.length / HEADER_WORDS;
  const textAt = new Float64Array(rows);
  for (let r = 0, at = 0; r < rows; r++) {
    textAt[r] = at;
    at += headers[r * HEADER_WORDS + LENGTH]!;
  }
  return textAt;
}
