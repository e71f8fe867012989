// What a reader hands on: rows in batches (their texts in a shared buffer, the rest a few strings and
// numbers) with each row's key, and why a reading pass may have to start again.
// docs/import.md, "How it works".
import { fieldIndex } from '../../../shared/fields';
import { stringHash } from '../../dataset/codec/columnVector';
import type { RecordValues } from '../../dataset/codec/recordFormat';
import type { RejectedRow } from '../types';

/**
 * Rows a batch holds at most: its joined JSON texts (~1.3 KB a row) stay under V8's 128 KB
 * large-object size on both threads; 512-row batches were fresh pages each (docs/import.md,
 * "Memory touched once").
 */
export const BATCH_ROWS = 64;
/**
 * A row's key: STATE (2 characters), PID (32 hexadecimal digits), then where its household goes in
 * the file's order (stage/staging.ts): ZIP as a number, a hash of ADDRESS and one of HHID, 8
 * hexadecimal digits each.
 */
export const KEY_LENGTH = 58;
/** Where in a key the household's three numbers start (after STATE and PID). */
export const KEY_HOUSEHOLD_AT = 34;

const STATE = fieldIndex('STATE');
const PID = fieldIndex('PID');
const ZIP = fieldIndex('ZIP');
const ADDRESS = fieldIndex('ADDRESS');
const HHID = fieldIndex('HHID');

/** Every byte as 2 upper-case hexadecimal digits. */
const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).toUpperCase().padStart(2, '0'));

/**
 * 8 upper-case hexadecimal digits, as stage/pidFingerprints.ts's hex8 reads PIDs: four table
 * lookups, where toString(16), toUpperCase and padStart made three strings a number (three numbers a row).
 */
const hex8 = (n: number): string =>
  HEX_BYTES[n >>> 24]! + HEX_BYTES[(n >>> 16) & 0xff]! + HEX_BYTES[(n >>> 8) & 0xff]! + HEX_BYTES[n & 0xff]!;

/** The key of an accepted row (its values as the row checker leaves them: STATE and PID checked). */
export function rowKey(values: RecordValues): string {
  const zip = values[ZIP] as string;
  // A ZIP that is not 5 digits sorts before every other of its state; the order only groups
  // neighbours (the PID ranks keep PID order), so any fixed place will do.
  const zipNumber = /^[0-9]{5}$/.test(zip) ? Number(zip) : 0;
  return (
    (values[STATE] as string) +
    (values[PID] as string) +
    hex8(zipNumber) +
    hex8(stringHash(values[ADDRESS] as string)) +
    hex8(stringHash(values[HHID] as string))
  );
}
/** A row longer than this is not a row but an unclosed quote swallowing the file: the import stops. */
export const MAX_ROW_CHARS = 1024 * 1024;

export interface RowBatch {
  /** Index of the file in the import's list. */
  file: number;
  /** Data rows read (accepted + rejected). */
  read: number;
  accepted: number;
  /** The accepted rows' keys, concatenated (KEY_LENGTH characters each). */
  keys: string;
  /**
   * The accepted rows' records as JSON.stringify(values) texts, joined by '\n' (which JSON escapes),
   * in UTF-8: the first `textBytes` bytes of `texts` (null when none was accepted). The buffer is
   * the reader's again once the batch is taken in (batchTexts.ts): read it, do not keep it.
   */
  texts: SharedArrayBuffer | null;
  textBytes: number;
  /** The accepted rows' extras for the dataset writer, RECORD_EXTRA_WORDS each (dataset/write/recordExtras.ts). */
  extras: Uint32Array;
  rejects: Array<Omit<RejectedRow, 'file'>>;
  /** Bytes of this reader's share (splitInput.ts) read so far (as stored: compressed for gzip). */
  bytesRead: number;
}

/**
 * A reading pass that cannot go on: a cut between two readers that fell inside a quoted field. The
 * import then reads every row again from the start, with one reader (importRun.ts).
 */
export interface Restart {
  kind: 'restart';
  reason: 'misaligned-cut';
}

export const restart = (reason: Restart['reason']): Restart => ({ kind: 'restart', reason });
