// What a reader hands on: rows in batches of plain strings (they cross threads as a few strings),
// and why a reading pass may have to start again. docs/import.md, "How it works".
import type { RejectedRow } from '../types';

/**
 * Rows a batch holds at most. Also the rows of a file's head looked at for its order
 * (source/sourceFile.ts): the first batch then decides what that look predicted.
 */
export const BATCH_ROWS = 512;
/** A key: STATE (2 characters) then PID (32): keys compare as (STATE, PID) pairs do. */
export const KEY_LENGTH = 34;
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
  /** The accepted rows' records as JSON.stringify(values) texts, joined by '\n' (which JSON escapes). */
  json: string;
  rejects: Array<Omit<RejectedRow, 'file'>>;
  /** Bytes of this reader's share (splitInput.ts) read so far (as stored: compressed for gzip). */
  bytesRead: number;
}

/**
 * A reading pass that cannot go on: rows not in (STATE, PID) order for the writer that takes them
 * as they come, or a cut between two readers that fell inside a quoted field. The import then
 * reads every row again from the start, another way (importRun.ts).
 */
export interface Restart {
  kind: 'restart';
  reason: 'not-sorted' | 'misaligned-cut';
}

export const restart = (reason: Restart['reason']): Restart => ({ kind: 'restart', reason });
