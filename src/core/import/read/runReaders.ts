// Runs a reading pass: one reader per share of the input (splitInput.ts), each on its own worker
// thread (readWorker.ts) so that parsing and checking use the other core while this thread writes;
// or, when no worker can start (config.ts: importWorkers off, or a bundle built without the
// worker), every share on this thread one after the other. Either way onBatch sees each reader's
// batches in that reader's order. docs/import.md, "How it works".
import type { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../../../shared/errors';
import { settings } from '../../config';
import { ColumnSet } from '../../dataset/write/columnSet';
import { VectorSpill, type SpilledColumn } from '../../dataset/write/vectorSpill';
import { startWorker } from '../../workers/startWorker';
import { stopWorker } from '../../workers/stopWorker';
import { importCancelled, throwIfCancelled } from '../cancelled';
import type { SourceInfo } from '../source/sourceFile';
import type { Restart, RowBatch } from './batch';
import { readShare } from './readShare';
import type { ReaderMessage, ReadWorkerData } from './readWorker';
import type { FilePart } from './splitInput';

/** Takes a batch of `reader`; a Restart ends the pass (the rows cannot be taken in this order). */
export type OnBatch = (batch: RowBatch, reader: number) => Restart | void;

/** Asks every reader to build the vectors of the rows it accepts, in arrival order, in a spill file of its own. */
export interface ReaderVectors {
  /** Reader k's spill file (the caller removes it). */
  spillPath(reader: number): string;
  /** Reader k's vectors, once it has read its whole share. */
  onColumns(columns: SpilledColumn[], reader: number): void;
}

export type PassResult = { kind: 'done'; thread: 'worker' | 'this thread' } | Restart;

/** Reads every share, calling onBatch synchronously for each batch; says where, or why the pass must start again. */
export async function runReaders(
  sources: readonly SourceInfo[],
  shares: readonly FilePart[][],
  onBatch: OnBatch,
  options: { signal?: AbortSignal; vectors?: ReaderVectors } = {},
): Promise<PassResult> {
  const { signal, vectors } = options;
  throwIfCancelled(signal);
  const workers: Worker[] = [];
  if (settings().importWorkers)
    for (const [reader, parts] of shares.entries()) {
      const workerData: ReadWorkerData = { sources: [...sources], parts, spillPath: vectors?.spillPath(reader) };
      const worker = startWorker('readWorker', import.meta.url, { workerData });
      if (!worker) break;
      workers.push(worker);
    }
  try {
    if (workers.length > 0 && workers.length === shares.length) {
      const result = await onWorkers(workers, onBatch, signal, vectors);
      if (result) return result;
    }
  } finally {
    // Stopped for good before the caller goes on: a worker stopped mid-way may still hold its spill
    // file open, which the caller is about to remove or write again. Asked, not terminated
    // (workers/stopWorker.ts: Node aborts on a thread terminated while building a zstd stream).
    await Promise.all(workers.map((w) => stopWorker(w)));
  }
  return onThisThread(sources, shares, onBatch, signal, vectors);
}

async function onThisThread(
  sources: readonly SourceInfo[],
  shares: readonly FilePart[][],
  onBatch: OnBatch,
  signal: AbortSignal | undefined,
  vectors: ReaderVectors | undefined,
): Promise<PassResult> {
  for (const [reader, parts] of shares.entries()) {
    const spill = vectors && new VectorSpill(vectors.spillPath(reader));
    const columns = spill && new ColumnSet(undefined, spill);
    let read;
    try {
      read = await readShare(sources, parts, (batch) => onBatch(batch, reader), signal, columns);
    } catch (e) {
      spill?.close(); // the file itself is the caller's to remove
      throw e;
    }
    if (read.kind === 'restart') {
      spill?.close();
      return read;
    }
    if (columns) vectors!.onColumns(columns.spilled(), reader); // closes the spill
  }
  return { kind: 'done', thread: 'this thread' };
}

/** What became of one reader. */
interface ReaderState {
  started: boolean;
  done: boolean;
  restart?: Restart;
  failure?: unknown;
}

/**
 * Resolves with the pass's result, or undefined when no worker loaded (the caller reads on this
 * thread); rejects on failure. A reader's failure or restart counts only once every earlier reader
 * has finished well: if an earlier one finds its cut misaligned, a later one read from a wrong
 * start and may have failed for that reason alone.
 */
function onWorkers(
  workers: Worker[],
  onBatch: OnBatch,
  signal: AbortSignal | undefined,
  vectors: ReaderVectors | undefined,
): Promise<PassResult | undefined> {
  return new Promise<PassResult | undefined>((resolve, reject) => {
    const states: ReaderState[] = workers.map(() => ({ started: false, done: false }));
    let settled = false;
    const settle = (error: unknown, result?: PassResult): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      for (const w of workers) void stopWorker(w);
      if (error) reject(error);
      else resolve(result);
    };
    // The first reader not finished decides: its restart or failure is the pass's, or all went well.
    const review = (): void => {
      const first = states.find((s) => !s.done);
      if (!first) settle(null, { kind: 'done', thread: 'worker' });
      else if (first.restart) settle(null, first.restart);
      else if (first.failure !== undefined) settle(first.failure);
    };
    const fail = (reader: number, error: unknown): void => {
      states[reader]!.failure ??= error;
      review();
    };
    const abort = (): void => settle(importCancelled());
    signal?.addEventListener('abort', abort, { once: true });
    workers.forEach((worker, reader) => {
      const state = states[reader]!;
      worker.on('message', (message: ReaderMessage) => {
        if (settled || state.failure !== undefined || state.restart) return;
        if (message === 'ready') state.started = true;
        else if (message === 'done') {
          state.done = true;
          review();
        } else if ('columns' in message) {
          try {
            vectors?.onColumns(message.columns, reader);
          } catch (e) {
            settle(e);
          }
        } else if ('restart' in message) {
          state.restart = message.restart;
          review();
        } else if ('error' in message) {
          const { error } = message;
          fail(
            reader,
            error.appError
              ? new AppError((error.code ?? 'invalid_request') as ErrorCode, error.message, error.field)
              : new Error(error.message),
          );
        } else {
          let verdict: Restart | void;
          try {
            verdict = onBatch(message, reader);
          } catch (e) {
            return settle(e); // this thread's own failure (a full disk): final at once
          }
          if (verdict) return settle(null, verdict); // the taker cannot go on: no reader can
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
