// Staged vectors put in the dataset's (STATE, PID) order while the records are written. Both jobs
// come once every row is read: writing the records (the main thread: reading the staging file
// back, inserting into SQLite) and putting each field's vector in final order (reading its parts
// back from the readers' spill files and merging them, columnOrder.ts): ~0.6 s and ~0.4 s for
// 200,000 records. The second runs on a worker thread (orderWorker.ts) beside the first, so the two
// cores share them. Its results go to one more spill file, a whole vector a field, which the writer
// reads back one field at a time: memory holds one field's vectors at once on each thread.
import type { SpilledColumn } from '../dataset/vectorSpill';
import { orderColumns, type OrderWorkerData, type OrderWorkerMessage } from './orderColumns';
import { startImportWorker } from './startImportWorker';

/** The ordering under way: `columns` settles when it is done; stop() ends it early (a failure, a cancel). */
export interface FinalOrder {
  columns: Promise<SpilledColumn[]>;
  stop(): Promise<void>;
}

/** Starts orderColumns on a worker thread, or (no worker can start) does it now on this one. */
export function startFinalOrder(data: OrderWorkerData): FinalOrder {
  const worker = startImportWorker('orderWorker', data);
  if (!worker) {
    const columns = new Promise<SpilledColumn[]>((resolve) => resolve(orderColumns(data)));
    return { columns, stop: async () => undefined };
  }
  let answered = false;
  let stopped = false;
  const columns = new Promise<SpilledColumn[]>((resolve, reject) => {
    worker.on('message', (message: OrderWorkerMessage) => {
      answered = true;
      if ('error' in message) reject(new Error(message.error));
      else resolve(message.columns);
    });
    worker.on('error', () => undefined); // followed by 'exit'
    // A worker that dies without an answer (it could not load, it ran out of memory) leaves the
    // work to this thread, as when none can start; one stopped by stop() leaves nothing to do.
    worker.on('exit', () => {
      if (answered) return;
      if (stopped) return reject(new Error('Putting the vectors in order was stopped.'));
      try {
        resolve(orderColumns(data));
      } catch (e) {
        reject(e);
      }
    });
  });
  columns.catch(() => undefined); // awaited later, or never when the import fails first
  const stop = async (): Promise<void> => {
    stopped = true;
    await worker.terminate();
  };
  return { columns, stop };
}
