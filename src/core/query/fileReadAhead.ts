// Reading ahead what the first requests read from the file. Just after a computer starts, or once the
// OS has let the file's pages go, every page a request needs is a read from the disk: on the VM of
// docs/performance.md ("30 November: a file the OS has not cached"), 0.3-0.65 ms a read however many
// are in flight, and a state's first page at 30M read ~900 pages of the file (61 ms, against 17 ms
// cached), a page of 100 records at depth ~150 ms. So the serving start-up (EmbeddedEngine.ready)
// starts a thread that reads each state's first page's pages and the B-tree pages above the record
// blocks into the OS cache (fileReadAheadSteps.ts), while the start-up and the first requests go on.
// What the thread reads is dropped: the OS keeps it, and every connection to the file finds it there.
import type { Dataset } from '../dataset/read/dataset';
import { datasetIdentity } from '../dataset/read/pieceFetch';
import type { VerifyGate } from '../dataset/verify/verifyGate';
import { startWorker } from '../workers/startWorker';
import type { ReadAheadCounts } from './fileReadAheadSteps';

/**
 * Starts the read-ahead of `dataset` on a thread that gives way to requests through `gate`. Resolves
 * with what it read once done; null when no thread could start, the gate closed first or the thread
 * failed (the requests then read from the disk as they would have).
 */
export function readFileAhead(dataset: Dataset, gate: VerifyGate): Promise<ReadAheadCounts | null> {
  const workerData = { path: dataset.path, identity: datasetIdentity(dataset.meta), gate: gate.buffer };
  const worker = startWorker('fileReadAheadWorker', import.meta.url, { workerData });
  if (!worker) return Promise.resolve(null);
  worker.unref();
  return new Promise((resolve) => {
    worker.once('message', (counts: ReadAheadCounts) => resolve(counts));
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  });
}
