// Worker-thread entry of a reader (readShare.ts over one share), started by runReaders.ts. Messages
// to the parent: 'ready' once loaded, batches, then (when asked to build vectors) { columns }, then
// 'done', { restart } or { error }; it ends when asked (workers/stopWorker.ts). At most IN_FLIGHT
// batches wait for the parent's 'ack', so memory stays bounded when the writer is slower than the
// reader. docs/import.md, "How it works".
import { parentPort, workerData } from 'node:worker_threads';
import { ColumnSet } from '../../dataset/write/columnSet';
import { VectorSpill, type SpilledColumn } from '../../dataset/write/vectorSpill';
import type { SourceInfo } from '../source/sourceFile';
import { stopWhenAsked } from '../../workers/stopWorker';
import type { Restart, RowBatch } from './batch';
import { BatchTexts } from './batchTexts';
import { readShare } from './readShare';
import type { FilePart } from './splitInput';

/** Batches a reader may have unanswered: 32 of 64 rows hold the rows 4 batches of 512 did. */
export const IN_FLIGHT = 32;

export interface ReadWorkerData {
  sources: SourceInfo[];
  parts: FilePart[];
  /** Where the vectors of the accepted rows go while they are built; none are built without it. */
  spillPath?: string;
}

export type ReaderMessage =
  | 'ready'
  | 'done'
  | RowBatch
  | { columns: SpilledColumn[] }
  | { restart: Restart }
  | { error: { message: string; appError: boolean; code?: string; field?: string } };

const port = parentPort!;
stopWhenAsked(port); // runReaders.ts stops a reader by asking, also after 'done'
const post = (message: ReaderMessage): void => port.postMessage(message);
let credits = IN_FLIGHT;
let wake: (() => void) | undefined;
// The texts of the batches sent and not acknowledged yet, oldest first: the parent acknowledges in order.
const texts = new BatchTexts(false);
const unacknowledged: Array<SharedArrayBuffer | null> = [];
port.on('message', (message) => {
  if (message !== 'ack') return;
  texts.free(unacknowledged.shift() ?? null);
  credits++;
  wake?.();
  wake = undefined;
});

async function send(batch: RowBatch): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits--;
  unacknowledged.push(batch.texts);
  post(batch);
}

const data = workerData as ReadWorkerData;
post('ready');
const columns = data.spillPath ? new ColumnSet(undefined, new VectorSpill(data.spillPath)) : undefined;
readShare(data.sources, data.parts, send, undefined, columns, texts).then(
  (read) => {
    if (read.kind === 'restart') return post({ restart: read });
    if (columns) post({ columns: columns.spilled() });
    post('done');
  },
  (e: Error & { code?: string; field?: string }) =>
    post({ error: { message: e.message, appError: e.name === 'AppError', code: e.code, field: e.field } }),
);
