// The generated records' texts, made on a worker thread (generateWorker.ts) and taken here one
// batch at a time, synchronously: generateDataset stays a plain function while the generator and
// JSON.stringify use the second core and this thread builds the vectors and writes. The texts are
// exactly JSON.stringify(record) of generateRecords(rows, seed): the same records, in the same order.
// Without a worker (AUDIENCE_DESK_GENERATE_WORKER=0, or the worker's module is not there: a bundle
// built without it) the caller generates on its own thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

/** Indexes into the shared counters (Int32Array): batches the worker posted, batches taken here. */
export const POSTED = 0;
export const TAKEN = 1;

/** Between the string values of one record in a batch (the generator's values never hold it). */
export const SEPARATOR = '\u0001';

/** A batch: texts and string values of its records joined by '\n'; integer values record after record. */
export interface GeneratedBatch {
  texts: string;
  strings: string;
  ints: Float64Array;
}

export type GenerateMessage = GeneratedBatch | { done: true } | { error: string };

/** How long the worker may go without a batch (it makes one in milliseconds) before it is given up as dead. */
const STALL_MS = 120_000;

function workerUrl(): URL | undefined {
  if (process.env.AUDIENCE_DESK_GENERATE_WORKER === '0') return undefined;
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(fromSource ? './generateWorker.ts' : './generateWorker.js', import.meta.url);
  return url.protocol === 'file:' && existsSync(fileURLToPath(url)) ? url : undefined;
}

/** Batches of records from a worker, or undefined when no worker can run. */
export function workerTexts(rows: number, seed: number): Generator<GeneratedBatch> | undefined {
  const url = workerUrl();
  if (!url) return undefined;
  return take(url, rows, seed);
}

function* take(url: URL, rows: number, seed: number): Generator<GeneratedBatch> {
  const counters = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const fromSource = url.pathname.endsWith('.ts');
  const execArgv = fromSource && !process.execArgv.some((a) => a.includes('tsx')) ? [...process.execArgv, '--import', 'tsx'] : undefined;
  const worker = new Worker(url, { workerData: { rows, seed, port: port2, counters }, transferList: [port2], execArgv });
  worker.unref();
  try {
    for (;;) {
      const seen = Atomics.load(counters, POSTED);
      const received = receiveMessageOnPort(port1);
      if (!received) {
        // Nothing yet: sleep until the worker posts (POSTED changes) or the stall limit.
        if (Atomics.wait(counters, POSTED, seen, STALL_MS) === 'timed-out') throw new Error('The generator worker stopped answering.');
        continue;
      }
      const message = received.message as GenerateMessage;
      Atomics.add(counters, TAKEN, 1);
      Atomics.notify(counters, TAKEN);
      if ('done' in message) return;
      if ('error' in message) throw new Error(message.error);
      yield message;
    }
  } finally {
    port1.close();
    void worker.terminate();
  }
}
