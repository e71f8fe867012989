// The full check of a dataset file: every record block and every vector against its checksum, for `cli verify --db FILE` and the background
// verify's worker. Apart from verify.ts because that one starts the worker: a worker's module graph
// must not hold startWorker, or the bundler puts it in a chunk away from the workers' folder.
import { AppError } from '../../../shared/errors';
import { Dataset } from '../read/dataset';

export type VerifyResult =
  { ok: true; path: string; records: number; formatVersion: string } | { ok: false; path: string; message: string };

/**
 * Checks a whole file; a file that does not open is a result too (truncated, foreign, damaged).
 * `betweenSteps` runs between two steps of the check (the background verify waits there for requests).
 */
export function verifyDatasetFile(path: string, betweenSteps?: () => void): VerifyResult {
  let dataset: Dataset;
  try {
    dataset = Dataset.open(path);
  } catch (e) {
    if (e instanceof AppError) return { ok: false, path, message: e.message };
    throw e;
  }
  try {
    for (const _ of dataset.verifySteps()) betweenSteps?.();
    return { ok: true, path, records: dataset.records, formatVersion: dataset.formatVersion };
  } catch (e) {
    if (e instanceof AppError) return { ok: false, path, message: e.message };
    throw e;
  } finally {
    dataset.close();
  }
}
