// Putting the staged vectors in the dataset's final order and encoding them (orderColumns.ts) on a worker
// thread (orderWorker.ts) while this thread writes the records, so the two cores share the write
// phase; on this thread when no worker can start or one dies without an answer.
// docs/import.md, "Write".
import { settings } from '../../config';
import type { SpilledEncodedColumn } from '../../dataset/write/encodedColumn';
import { startWorker } from '../../workers/startWorker';
import { stopWorker } from '../../workers/stopWorker';
import { ORDER_STOPPED, orderColumns, type OrderWorkerData, type OrderWorkerMessage } from './orderColumns';

/** The ordering under way: `columns` settles when it is done; stop() ends it early (a failure, a cancel). */
export interface FinalOrder {
  columns: Promise<SpilledEncodedColumn[]>;
  stop(): Promise<void>;
}

/** Starts orderColumns on a worker thread, or (no worker can start) does it now on this one. */
export function startFinalOrder(data: OrderWorkerData): FinalOrder {
  const stopFlag = new Int32Array(new SharedArrayBuffer(4));
  const worker = settings().importWorkers
    ? startWorker('orderWorker', import.meta.url, { workerData: { ...data, stop: stopFlag } })
    : undefined;
  if (!worker) {
    const columns = new Promise<SpilledEncodedColumn[]>((resolve) => resolve(orderColumns(data)));
    return { columns, stop: async () => undefined };
  }
  let answered = false;
  let stopped = false;
  const columns = new Promise<SpilledEncodedColumn[]>((resolve, reject) => {
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
      if (stopped) return reject(new Error(ORDER_STOPPED));
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
    // It ends itself before its next field: a terminate could land while it builds a zstd stream.
    await stopWorker(worker, () => Atomics.store(stopFlag, 0, 1));
  };
  return { columns, stop };
}
