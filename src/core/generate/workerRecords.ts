// The generated records, made on a worker thread (generateWorker.ts) and taken here a batch at a
// time, synchronously: generateDataset stays a plain function while generating uses the second
// core. The texts are exactly JSON.stringify of generateStored(rows, seed)'s records, in order. Without a
// worker (config.ts: generateWorker off, or no worker module beside this one, as in the desktop
// bundle) the caller generates on its own thread.
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { settings } from '../config';
import { startWorker } from '../workers/startWorker';
import { stopWorker } from '../workers/stopWorker';

/**
 * Indexes into the shared counters (Int32Array): batches the worker posted, batches taken here,
 * and 1 once the taker stopped early (the worker then ends itself: workers/stopWorker.ts says why
 * it is not terminated).
 */
export const POSTED = 0;
export const TAKEN = 1;
export const STOP = 2;

/** Between the string values of one record in a batch (the generator's values never hold it). */
export const SEPARATOR = '\u0001';

/** A batch: texts and string values of its records joined by '\n'; integers and coordinates record after record; each record's PID rank. */
export interface GeneratedBatch {
  texts: string;
  strings: string;
  numbers: Float64Array;
  ranks: Uint32Array;
}

export type GenerateMessage = GeneratedBatch | { done: true } | { error: string };

/** How long the worker may go without a batch (it makes one in milliseconds) before it is given up as dead. */
const STALL_MS = 120_000;

/** Batches of records from a worker, or undefined when no worker can run. */
export function workerTexts(rows: number, seed: number): Generator<GeneratedBatch> | undefined {
  if (!settings().generateWorker) return undefined;
  const counters = new Int32Array(new SharedArrayBuffer(12));
  const { port1, port2 } = new MessageChannel();
  const worker = startWorker('generateWorker', import.meta.url, {
    workerData: { rows, seed, port: port2, counters },
    transferList: [port2],
  });
  if (!worker) {
    port1.close();
    return undefined;
  }
  worker.unref();
  return take(worker, port1, counters);
}

function* take(worker: Worker, port1: MessagePort, counters: Int32Array): Generator<GeneratedBatch> {
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
    // Woken from its wait for the taker, it sees STOP before its next batch.
    void stopWorker(worker, () => {
      Atomics.store(counters, STOP, 1);
      Atomics.notify(counters, TAKEN);
    });
  }
}
