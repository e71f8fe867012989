// Worker-thread entry that puts the staged vectors in final order (orderColumns.ts) while the main
// thread writes the records (finalOrder.ts). Posts { columns } (where in workerData.outPath each
// vector is), or { error }.
import { parentPort, workerData } from 'node:worker_threads';
import { orderColumns, type OrderWorkerData, type OrderWorkerMessage } from './orderColumns';

let message: OrderWorkerMessage;
try {
  message = { columns: orderColumns(workerData as OrderWorkerData) };
} catch (e) {
  message = { error: (e as Error).message };
}
parentPort!.postMessage(message);
