// A damaged dataset file is one error, `dataset_damaged` (HTTP 503), never a 500 and never a wrong
// answer: a checksum that does not match (blockCodec.ts) or SQLite finding its own pages malformed
// both end here. The message names the file, says what is damaged and what to do; it never holds
// record data. docs/dataset-format.md, "Damage".
import { AppError } from '../../../shared/errors';

const WHAT_TO_DO = 'switch to the previous dataset (Datasets) or import the data again; `cli verify --db FILE` checks a whole file';

export function datasetDamaged(path: string, what: string): AppError {
  return new AppError('dataset_damaged', `The dataset file ${path} is damaged (${what}): ${WHAT_TO_DO}.`);
}

// SQLite's result codes for a file that is not what it should be: pages that do not parse, a file
// that is not a database, a read past its end (truncated), a text that is not valid in its encoding.
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB|IOERR_SHORT_READ|IOERR_READ|IOERR|FORMAT|RANGE|MISMATCH|TOOBIG)/;

/** True for an error SQLite raised because the file's bytes are malformed. */
export function isSqliteDamage(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}

/**
 * Runs a read of the dataset file: SQLite's "malformed" errors, and any other failure that can only
 * come from bytes that are not what the writer wrote (a parse error, a missing row), become
 * `dataset_damaged`. AppErrors pass through untouched.
 */
export function guardRead<T>(path: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw asDamage(e, path, what);
  }
}

export function asDamage(e: unknown, path: string, what: string): unknown {
  if (e instanceof AppError) return e;
  if (isSqliteDamage(e)) return datasetDamaged(path, `${what}: SQLite reports ${(e as Error).message}`);
  if (e instanceof SyntaxError || e instanceof RangeError) return datasetDamaged(path, what);
  const code = (e as { code?: unknown } | null)?.code;
  // zstd's own errors (a frame that does not decode).
  if (typeof code === 'string' && /^(ERR_ZLIB|Z_|ZSTD_)/.test(code)) return datasetDamaged(path, what);
  return e;
}
