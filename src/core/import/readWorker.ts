// Worker-thread entry of an import's read side (readRows.ts): parsing and checking take half the
// CPU time of an import, so they run here while the main thread writes. Messages to the parent:
// 'ready' once loaded, then RowBatch objects, then 'done' or { error }. At most IN_FLIGHT batches
// are sent before the parent acknowledges one ('ack'), so memory stays bounded when the writer is
// slower than the reader.
import { parentPort, workerData } from 'node:worker_threads';
import { readRows, type RowBatch } from './readRows';
import type { SourceInfo } from './sourceFile';

export const IN_FLIGHT = 4;

export interface WorkerError {
  error: { message: string; appError: boolean; code?: string; field?: string };
}

const port = parentPort!;
let credits = IN_FLIGHT;
let wake: (() => void) | undefined;
port.on('message', (message) => {
  if (message !== 'ack') return;
  credits++;
  wake?.();
  wake = undefined;
});

async function send(batch: RowBatch): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits--;
  port.postMessage(batch);
}

port.postMessage('ready');
readRows(workerData.sources as SourceInfo[], send).then(
  () => port.postMessage('done'),
  (e: Error & { code?: string; field?: string }) =>
    port.postMessage({ error: { message: e.message, appError: e.name === 'AppError', code: e.code, field: e.field } } satisfies WorkerError),
);
