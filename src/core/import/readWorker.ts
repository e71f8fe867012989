// Worker-thread entry of an import's read side (readRows.ts): parsing, checking and building the
// vectors are most of an import's CPU time, so they run here while the main thread writes; staged
// input has two of these, each over its own share of the input (readShares.ts). Messages to the
// parent: 'ready' once loaded, then RowBatch objects, then (when workerData.build) { columns }:
// where in workerData.spillPath the dataset's vectors over the accepted rows are, in arrival order
// (vectorSpill.ts), then 'done' or { error }. At most IN_FLIGHT batches are sent before the parent
// acknowledges one ('ack'), so memory stays bounded when the writer is slower than the reader.
import { parentPort, workerData } from 'node:worker_threads';
import { ColumnSet } from '../dataset/columnSet';
import { VectorSpill, type SpilledColumn } from '../dataset/vectorSpill';
import { readRows, type RowBatch } from './readRows';
import { MisalignedCut, type FilePart } from './readShares';
import { vectorsBuilt, type ReaderBuilds } from './vectorShare';
import type { SourceInfo } from './sourceFile';

export const IN_FLIGHT = 4;

export interface ReadWorkerData {
  sources: SourceInfo[];
  parts: FilePart[];
  build: ReaderBuilds;
  /** Where the vectors go while they are built (when build is not 'none'). */
  spillPath?: string;
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
  columns: SpilledColumn[];
}

const data = workerData as ReadWorkerData;
port.postMessage('ready');
const only = vectorsBuilt(data.build);
const columns = only ? new ColumnSet(undefined, only, new VectorSpill(data.spillPath!)) : undefined;
readRows(data.sources, data.parts, send, undefined, columns).then(
  () => {
    if (columns) port.postMessage({ columns: columns.spilled() } satisfies WorkerColumns);
    port.postMessage('done');
  },
  (e: Error & { code?: string; field?: string }) =>
    port.postMessage({
      error: { message: e.message, appError: e.name === 'AppError', code: e.code, field: e.field, misaligned: e instanceof MisalignedCut },
    } satisfies WorkerError),
);
