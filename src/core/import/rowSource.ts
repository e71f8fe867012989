// Where an import's rows are read: on worker threads (readWorker.ts), one per share of the input
// (readShares.ts), so that parsing and checking use the other core while this thread writes; or on
// this thread, the shares one after the other, when no worker can start (the worker's file is not
// there: a bundle built without it) or AUDIENCE_DESK_IMPORT_WORKER=0. Either way `onBatch` sees
// each reader's batches in that reader's order, and `onColumns` (when `build` asks for vectors)
// where each reader's vectors over its accepted rows are (in its spill file, vectorSpill.ts), in
// arrival order, once that reader has read all.
import type { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../../shared/errors';
import { ColumnSet } from '../dataset/columnSet';
import { VectorSpill, type SpilledColumn } from '../dataset/vectorSpill';
import { readRows, type RowBatch } from './readRows';
import { MisalignedCut, type FilePart } from './readShares';
import type { ReadWorkerData, WorkerColumns, WorkerError } from './readWorker';
import type { SourceInfo } from './sourceFile';
import { startImportWorker } from './startImportWorker';
import { vectorsBuilt, type ReaderBuilds } from './vectorShare';

const cancelled = (): AppError => new AppError('invalid_request', 'The import was cancelled.');

export type OnBatch = (batch: RowBatch, reader: number) => void;
export type OnColumns = (columns: SpilledColumn[], reader: number) => void;
/** The spill file of a reader's vectors (removed by the caller). */
export type SpillPath = (reader: number) => string;

/**
 * Reads every share (in parallel on workers), calling onBatch synchronously for each batch; says
 * where they were read. Rejects with MisalignedCut when a cut between shares fell inside a quoted
 * field (nothing a later reader did then counts: the caller starts again on one share).
 */
export async function readBatches(
  sources: readonly SourceInfo[],
  shares: readonly FilePart[][],
  onBatch: OnBatch,
  signal?: AbortSignal,
  build: ReaderBuilds = 'none',
  onColumns?: OnColumns,
  spillPath?: SpillPath,
): Promise<'worker' | 'this thread'> {
  if (signal?.aborted) throw cancelled();
  if (build !== 'none' && !(onColumns && spillPath)) throw new Error('Vectors built while reading need onColumns and spillPath.');
  const workers: Worker[] = [];
  for (const [reader, parts] of shares.entries()) {
    const worker = startImportWorker('readWorker', {
      sources: [...sources],
      parts,
      build,
      spillPath: spillPath?.(reader),
    } satisfies ReadWorkerData);
    if (!worker) break;
    workers.push(worker);
  }
  try {
    if (workers.length === shares.length && (await runWorkers(workers, onBatch, signal, onColumns))) return 'worker';
  } finally {
    // Stopped for good before the caller goes on: a worker stopped mid-way may still hold its spill
    // file open, which the caller is about to remove or write again.
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const only = vectorsBuilt(build);
  for (const [reader, parts] of shares.entries()) {
    const spill = only ? new VectorSpill(spillPath!(reader)) : undefined;
    const columns = spill ? new ColumnSet(undefined, only, spill) : undefined;
    try {
      await readRows(sources, parts, (batch) => onBatch(batch, reader), signal, columns);
    } catch (e) {
      spill?.close(); // the file itself is the caller's to remove
      throw e;
    }
    if (columns) onColumns!(columns.spilled(), reader);
  }
  return 'this thread';
}

/** What became of one reader. */
interface ReaderState {
  started: boolean;
  done: boolean;
  failure?: unknown;
}

/**
 * Resolves true when every worker read its share, false when none started (the caller reads on
 * this thread); rejects on failure. A reader's failure counts only once every earlier reader has
 * finished well: if an earlier one finds its cut misaligned, a later one read from a wrong start
 * and may have failed for that reason alone.
 */
function runWorkers(
  workers: Worker[],
  onBatch: OnBatch,
  signal: AbortSignal | undefined,
  onColumns: OnColumns | undefined,
): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const states: ReaderState[] = workers.map(() => ({ started: false, done: false }));
    let settled = false;
    const settle = (error: unknown, result = false): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      for (const w of workers) void w.terminate();
      if (error) reject(error);
      else resolve(result);
    };
    // The first reader not finished decides: its failure is the import's, or all went well.
    const review = (): void => {
      const first = states.find((s) => !s.done);
      if (!first) settle(null, true);
      else if (first.failure !== undefined) settle(first.failure);
    };
    const fail = (reader: number, error: unknown): void => {
      states[reader]!.failure ??= error;
      review();
    };
    const abort = (): void => settle(cancelled());
    signal?.addEventListener('abort', abort, { once: true });
    workers.forEach((worker, reader) => {
      const state = states[reader]!;
      worker.on('message', (message: RowBatch | WorkerError | WorkerColumns | 'ready' | 'done') => {
        if (settled || state.failure !== undefined) return;
        if (message === 'ready') state.started = true;
        else if (message === 'done') {
          state.done = true;
          review();
        } else if ('columns' in message) {
          try {
            onColumns?.(message.columns, reader);
          } catch (e) {
            settle(e);
          }
        } else if ('error' in message) {
          const { error } = message;
          if (error.misaligned) fail(reader, new MisalignedCut());
          else
            fail(
              reader,
              error.appError
                ? new AppError((error.code ?? 'invalid_request') as ErrorCode, error.message, error.field)
                : new Error(error.message),
            );
        } else {
          try {
            onBatch(message, reader);
          } catch (e) {
            return settle(e); // this thread's own failure (a full disk): final at once
          }
          worker.postMessage('ack');
        }
      });
      // Before 'ready' a failure means the worker could not load: if none loaded, the caller reads
      // on this thread; if another did, rows were taken already, and the import fails.
      const lost = (e?: unknown): void => {
        if (state.done) return;
        if (!state.started && states.every((s) => !s.started)) return settle(null);
        fail(reader, state.started && e ? e : new Error('The import worker stopped unexpectedly.'));
      };
      worker.on('error', lost);
      worker.on('exit', () => lost());
    });
  });
}
