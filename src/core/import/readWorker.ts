// Worker-thread entry of an import's read side (readRows.ts): parsing, checking and building the
// vectors are most of an import's CPU time, so they run here while the main thread writes; staged
// input has two of these, each over its own share of the input (readShares.ts). Messages to the
// parent: 'ready' once loaded, then RowBatch objects, then (when workerData.build) { columns }: the
// dataset's vectors over the accepted rows in arrival order, their buffers transferred, then
// 'done' or { error }. At most IN_FLIGHT batches are sent before the parent acknowledges one
// ('ack'), so memory stays bounded when the writer is slower than the reader.
import { parentPort, workerData } from 'node:worker_threads';
import { ColumnSet, type BuiltColumn } from '../dataset/columnSet';
import { readRows, type RowBatch } from './readRows';
import { MisalignedCut, type FilePart } from './readShares';
import { vectorsBuilt, type ReaderBuilds } from './vectorShare';
import type { SourceInfo } from './sourceFile';

export const IN_FLIGHT = 4;

export interface ReadWorkerData {
  sources: SourceInfo[];
  parts: FilePart[];
  build: ReaderBuilds;
}

export interface WorkerError {
  error: { message: string; appError: boolean; code?: string; field?: string; misaligned?: boolean };
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

const data = workerData as ReadWorkerData;
port.postMessage('ready');
const only = vectorsBuilt(data.build);
const columns = only ? new ColumnSet(undefined, only) : undefined;
readRows(data.sources, data.parts, send, undefined, columns).then(
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
    port.postMessage({
      error: { message: e.message, appError: e.name === 'AppError', code: e.code, field: e.field, misaligned: e instanceof MisalignedCut },
    } satisfies WorkerError),
);
