// The formats earlier versions wrote, which this version reads only to upgrade them (upgradeDataset.ts).
// Each differs from the current format (format/schema.ts) as docs/dataset-format.md's "Version history" says.
import { AppError } from '../../../shared/errors';
import { DATASET_FORMAT_VERSION } from '../format/schema';

/** Format 3: one row of JSON text a record (`records`), raw vectors, no checksums. */
export const TEXT_ROWS_FORMAT = '3';
/** Format 4: compressed, checksummed record blocks; each vector one zstd frame in `columns`. */
export const WHOLE_VECTORS_FORMAT = '4';
/** Format 5: vectors in chunks (vector_chunks); every state in PID order. */
export const PID_ORDER_FORMAT = '5';
/** Format 6: as 5, with the writer's own record order and PID ranks; coordinate vectors only in some files. */
export const OPTIONAL_PARTS_FORMAT = '6';
/** Format 7: as 6 with every part required or named; every vector chunk a zstd stream (none packed). */
export const ZSTD_CHUNKS_FORMAT = '7';

export const LEGACY_FORMATS: readonly string[] = [
  TEXT_ROWS_FORMAT,
  WHOLE_VECTORS_FORMAT,
  PID_ORDER_FORMAT,
  OPTIONAL_PARTS_FORMAT,
  ZSTD_CHUNKS_FORMAT,
];

/** The formats that may keep their records in the writer's order, with PID ranks (meta record_order). */
export const RANKED_FORMATS: readonly string[] = [OPTIONAL_PARTS_FORMAT, ZSTD_CHUNKS_FORMAT];

/** The command that upgrades a file, as a user types it. */
export function upgradeCommand(path: string): string {
  return `npm run --silent cli -- upgrade --db ${JSON.stringify(path)}`;
}

/** Why a file of another format does not open, in one sentence that says what to do. */
export function formatRefusal(path: string, version: string | undefined): AppError {
  if (version !== undefined && LEGACY_FORMATS.includes(version))
    return new AppError(
      'unavailable',
      `The dataset file ${path} is in format ${version}, which this version upgrades but no longer reads; upgrade it once with: ${upgradeCommand(path)}`,
    );
  return new AppError(
    'unavailable',
    `The dataset file ${path} has format ${version ?? 'unknown'}; this version of Audience Desk reads format ${DATASET_FORMAT_VERSION} (and upgrades formats ${LEGACY_FORMATS.join(', ')}).`,
  );
}
