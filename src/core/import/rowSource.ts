// Where an import's rows are read: on a worker thread (readWorker.ts) so that parsing and checking
// use the second core while this thread writes, or on this thread when no worker can start (the
// worker's file is not there: a bundle built without it) or AUDIENCE_DESK_IMPORT_WORKER=0.
// Either way `onBatch` sees the same batches in the same order, and `onColumns` (when given) the
// dataset's vectors over the accepted rows, in arrival order, once every row is read.
import { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../../shared/errors';
import { ColumnSet, type BuiltColumn } from '../dataset/columnSet';
import { readRows, type RowBatch } from './readRows';
import type { WorkerColumns, WorkerError } from './readWorker';
import type { SourceInfo } from './sourceFile';
import { readerBuilds } from './vectorShare';

const cancelled = (): AppError => new AppError('invalid_request', 'The import was cancelled.');

/**
 * The worker's module. From source (tsx, vitest) it is the .ts file beside this one, loaded through
 * tsx; a bundle must emit it as readWorker.js beside the chunk holding this module (docs/import.md).
 */
function startWorker(sources: readonly SourceInfo[], columns: boolean): Worker | undefined {
  if (process.env.AUDIENCE_DESK_IMPORT_WORKER === '0') return undefined;
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(fromSource ? './readWorker.ts' : './readWorker.js', import.meta.url);
  let execArgv: string[] | undefined;
  if (fromSource && !process.execArgv.some((a) => a.includes('tsx'))) execArgv = [...process.execArgv, '--import', 'tsx'];
  try {
    return new Worker(url, { workerData: { sources, columns }, execArgv });
  } catch {
    return undefined;
  }
}

/** Reads every file's rows, calling onBatch (synchronously, in order) for each batch; says where they were read. */
export async function readBatches(
  sources: readonly SourceInfo[],
  onBatch: (batch: RowBatch) => void,
  signal?: AbortSignal,
  onColumns?: (columns: BuiltColumn[]) => void,
): Promise<'worker' | 'this thread'> {
  if (signal?.aborted) throw cancelled();
  const worker = startWorker(sources, onColumns !== undefined);
  if (worker && (await runWorker(worker, onBatch, signal, onColumns))) return 'worker';
  const columns = onColumns ? new ColumnSet(undefined, readerBuilds) : undefined;
  await readRows(sources, onBatch, signal, columns);
  if (columns) onColumns!(columns.finish());
  return 'this thread';
}

/** Resolves true when the worker read everything, false when it never started; rejects on failure. */
function runWorker(
  worker: Worker,
  onBatch: (batch: RowBatch) => void,
  signal: AbortSignal | undefined,
  onColumns: ((columns: BuiltColumn[]) => void) | undefined,
): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    let started = false;
    let settled = false;
    const settle = (error: unknown, result = false): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(result);
    };
    const abort = (): void => settle(cancelled());
    signal?.addEventListener('abort', abort, { once: true });
    worker.on('message', (message: RowBatch | WorkerError | WorkerColumns | 'ready' | 'done') => {
      if (settled) return;
      if (message === 'ready') started = true;
      else if (message === 'done') settle(null, true);
      else if ('columns' in message) {
        try {
          onColumns?.(message.columns);
        } catch (e) {
          settle(e);
        }
      } else if ('error' in message) {
        const { error } = message;
        settle(error.appError ? new AppError((error.code ?? 'invalid_request') as ErrorCode, error.message, error.field) : new Error(error.message));
      } else {
        try {
          onBatch(message);
        } catch (e) {
          return settle(e);
        }
        worker.postMessage('ack');
      }
    });
    // Before 'ready' a failure means the worker could not load: the caller reads on this thread.
    worker.on('error', (e) => settle(started ? e : null));
    worker.on('exit', () => settle(started ? new Error('The import worker stopped unexpectedly.') : null));
  });
}
