// Worker-thread entry of an import's read side (readRows.ts): parsing and checking take half the
// CPU time of an import, so they run here while the main thread writes. Messages to the parent:
// 'ready' once loaded, then RowBatch objects, then (when workerData.columns) { columns }: the
// dataset's vectors over the accepted rows in arrival order, their buffers transferred, then
// 'done' or { error }. At most IN_FLIGHT batches
// are sent before the parent acknowledges one ('ack'), so memory stays bounded when the writer is
// slower than the reader.
import { parentPort, workerData } from 'node:worker_threads';
import { ColumnSet, type BuiltColumn } from '../dataset/columnSet';
import { readRows, type RowBatch } from './readRows';
import { readerBuilds } from './vectorShare';
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

export interface WorkerColumns {
  columns: BuiltColumn[];
}

port.postMessage('ready');
const columns = workerData.columns ? new ColumnSet(undefined, readerBuilds) : undefined;
readRows(workerData.sources as SourceInfo[], send, undefined, columns).then(
  () => {
    if (columns) {
      // Each vector's whole buffer moves (no copy), spare room included: the import's next step,
      // putting the vectors in (STATE, PID) order, makes exact-size ones anyway.
      const built = columns.finish();
      port.postMessage({ columns: built } satisfies WorkerColumns, built.map((c) => c.data.buffer as ArrayBuffer));
    }
    port.postMessage('done');
  },
  (e: Error & { code?: string; field?: string }) =>
    port.postMessage({ error: { message: e.message, appError: e.name === 'AppError', code: e.code, field: e.field } } satisfies WorkerError),
);
