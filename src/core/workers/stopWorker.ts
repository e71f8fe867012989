// Stopping a worker thread by asking it, never by worker.terminate() on a worker that may still run.
// Node (22.23 measured) aborts the whole process when a thread is terminated between the moment
// node:zlib builds a zstd stream's native handle and the moment it initialises it ("close before
// init" in the worker's teardown). Every worker that reads or writes the dataset's codecs builds such
// streams, at load (zstdContext.ts checks its kept contexts with a round trip) and at work, so a
// cancel that terminated one at the wrong moment brought down the CLI or the app. A worker asked to
// stop ends itself between two pieces of its own work, where no stream is half built.
// better-sqlite3 has the same hazard (dataset/verify/verifyGate.ts), which is why the scan worker
// has its own stop message (query/scanJob.ts). Safe for a worker's own module graph: nothing here
// starts a thread.
import type { MessagePort, Worker } from 'node:worker_threads';

/** The message an asked worker ends itself on. */
export const STOP_WORKER = 'stop worker';

/**
 * How long a worker may take to end itself before it is terminated after all: a worker that does
 * not answer is hung, and the rare hazard above is then better than a cancel that never ends.
 */
export const STOP_PATIENCE_MS = 10_000;

/** Worker side: ends this thread when `port` (parentPort, or the worker's own port) brings STOP_WORKER. */
export function stopWhenAsked(port: MessagePort): void {
  port.on('message', (message) => {
    if (message === STOP_WORKER) process.exit(0);
  });
}

/**
 * Asks `worker` to stop (`ask`: posts STOP_WORKER by default; a worker that never reads messages is
 * asked through shared memory or by closing its port) and resolves once it has ended. A worker that
 * ended itself exits with code 0, one terminated with 1.
 */
export function stopWorker(
  worker: Worker,
  ask: () => void = () => worker.postMessage(STOP_WORKER),
  patienceMs = STOP_PATIENCE_MS,
): Promise<void> {
  return new Promise((resolve) => {
    // -1 once the thread has ended: its 'exit' event may have been emitted already.
    if (worker.threadId === -1) return resolve();
    const timer = setTimeout(() => void worker.terminate(), patienceMs);
    timer.unref();
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    ask();
  });
}
