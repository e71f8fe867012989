// Reading ahead what the first requests read from the file. Just after a computer starts, or once the
// OS has let the file's pages go, every page a request needs is a read from the disk: on the VM of
// docs/performance.md ("30 November: a file the OS has not cached"), 0.3-0.65 ms a read however many
// are in flight, and a state's first page at 30M read ~900 pages of the file (61 ms, against 17 ms
// cached), a page of 100 records at depth ~150 ms. So the serving start-up (EmbeddedEngine.ready)
// starts a thread that reads each state's first page's pages and the B-tree pages above the record
// blocks into the OS cache (fileReadAheadSteps.ts), while the start-up and the first requests go on.
// What the thread reads is dropped: the OS keeps it, and every connection to the file finds it there.
// A file the OS holds already (fileCacheProbe.ts) gets no thread: it would only take a core from them.
import type { Dataset } from '../dataset/read/dataset';
import { datasetIdentity } from '../dataset/read/pieceFetch';
import type { VerifyGate } from '../dataset/verify/verifyGate';
import { startWorker } from '../workers/startWorker';
import { fileLooksCached } from './fileCacheProbe';
import type { ReadAheadCounts } from './fileReadAheadSteps';

/**
 * How long after the call the thread starts: the serving start-up's own requests and the server's
 * warm-up come first, and the server listens about then. Started at once, the thread's boot and
 * reads beside them put `serve` up ~70 ms later (medians of six starts at 10M: 1,165 ms against 1,096;
 * 1,118-1,135 against 1,092-1,095 with this delay, within the starts' spread).
 */
export const READ_AHEAD_DELAY_MS = 500;

/** What became of a read-ahead: what it read, 'cached' when the OS held the file already (none was needed), or null. */
export type ReadAheadOutcome = ReadAheadCounts | 'cached' | null;

/**
 * Starts the read-ahead of `dataset` (after `delayMs`) on a thread that gives way to requests
 * through `gate`, unless `looksCached` says the OS holds the file already (fileCacheProbe.ts: then
 * the thread would only take a core from the first requests). Resolves with what it read once done;
 * 'cached' when it did not start for that reason; null when no thread could start, the dataset or
 * the gate closed first or the thread failed (the requests then read from the disk as they would have).
 */
export function readFileAhead(
  dataset: Dataset,
  gate: VerifyGate,
  delayMs = READ_AHEAD_DELAY_MS,
  looksCached: (path: string) => boolean = fileLooksCached,
): Promise<ReadAheadOutcome> {
  // Now, at the start-up, not when the thread would start: the probe's reads of a cold file (~0.1-0.6
  // ms each, three at most past the fast ones) fall in the start-up rather than in the first requests.
  if (looksCached(dataset.path)) return Promise.resolve('cached');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (!dataset.isOpen) return resolve(null);
      const workerData = { path: dataset.path, identity: datasetIdentity(dataset.meta), gate: gate.buffer };
      const worker = startWorker('fileReadAheadWorker', import.meta.url, { workerData });
      if (!worker) return resolve(null);
      worker.unref();
      worker.once('message', (counts: ReadAheadCounts) => resolve(counts));
      worker.once('error', () => resolve(null));
      worker.once('exit', () => resolve(null));
    }, delayMs);
    timer.unref();
    dataset.onClose(() => {
      clearTimeout(timer);
      resolve(null);
    });
  });
}
