// The generated records, most made on a worker thread (generateWorker.ts) and taken here a batch at
// a time, synchronously, the rest made here in between: generateDataset stays a plain function while
// generating uses the second core. The worker's texts are exactly JSON.stringify of its records and
// its values come coded, so this thread makes no string of them; with the chunks made here they are
// generateStored(rows, seed)'s records, in order. Without a
// worker (config.ts: generateWorker off, or no worker module beside this one, as in the desktop
// bundle) the caller generates on its own thread.
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { settings } from '../config';
import { startWorker } from '../workers/startWorker';
import { stopWorker } from '../workers/stopWorker';
import { generateShare, type StoredRecord } from './generateRecords';

/**
 * Indexes into the shared counters (Int32Array): batches the worker posted, batches taken here,
 * and 1 once the taker stopped early (the worker then ends itself: workers/stopWorker.ts says why
 * it is not terminated).
 */
export const POSTED = 0;
export const TAKEN = 1;
export const STOP = 2;

/**
 * A batch of `count` records: their texts in UTF-8, one after another (record i is bytes
 * [ends[i - 1], ends[i]) of `text`, from 0 for the first); what the dataset writer needs of each
 * besides (its state, PID rank, HHID hash and extras, dataset/write/recordExtras.ts); and their
 * vectors' values as ColumnSet.pushCoded() takes them (string fields as their coders' codes, with
 * the values the coders added and where a field passed the dictionary limit).
 */
export interface GeneratedBatch {
  count: number;
  text: Uint8Array;
  ends: Uint32Array;
  states: string[];
  ranks: Uint32Array;
  hhidHashes: Uint32Array;
  extras: Uint32Array;
  codes: Uint32Array;
  added: string[][];
  passed: number[];
  numbers: Float64Array;
}

export type GenerateMessage = GeneratedBatch | { done: true } | { error: string };

/** How long the worker may go without a batch (it makes one in milliseconds) before it is given up as dead. */
const STALL_MS = 120_000;

/**
 * The calling thread makes every CALLER_EVERY-th chunk of records itself (generateShare) and the
 * worker the others. With the worker making every record, the calling thread, which codes little
 * now, waited for it half the time; a second worker instead took as long, with more CPU and ~150 MB
 * more memory (docs/performance.md, "The generator codes its own values").
 */
export const CALLER_EVERY = 3;
export const callerTakes = (chunk: number): boolean => chunk % CALLER_EVERY === CALLER_EVERY - 1;

/** A chunk of records in storage order: a batch from the worker, or records for the caller to make into one. */
export type GeneratedChunk = { batch: GeneratedBatch } | { records: StoredRecord[] };

/** The worker as the taker sees it. */
interface Share {
  worker: Worker;
  port: MessagePort;
  counters: Int32Array;
}

/** The chunks of `rows` records in storage order, most from a worker, or undefined when no worker can run. */
export function workerChunks(rows: number, seed: number, dictionaryLimit: number): Generator<GeneratedChunk> | undefined {
  if (!settings().generateWorker) return undefined;
  const counters = new Int32Array(new SharedArrayBuffer(12));
  const { port1, port2 } = new MessageChannel();
  const worker = startWorker('generateWorker', import.meta.url, {
    workerData: { rows, seed, dictionaryLimit, port: port2, counters },
    transferList: [port2],
  });
  if (!worker) {
    port1.close();
    return undefined;
  }
  worker.unref();
  return take({ worker, port: port1, counters }, generateShare(rows, seed, callerTakes));
}

/** The chunks in turn, each from the worker or from `own`, until the first that is not there. */
function* take(share: Share, own: Generator<StoredRecord[]>): Generator<GeneratedChunk> {
  try {
    for (let chunk = 0; ; chunk++) {
      if (callerTakes(chunk)) {
        const made = own.next();
        if (made.done) return;
        yield { records: made.value };
        continue;
      }
      const message = next(share);
      if ('done' in message) return;
      if ('error' in message) throw new Error(message.error);
      yield { batch: message };
    }
  } finally {
    stopShare(share);
  }
}

/** The worker's next message, waited for. */
function next({ port, counters }: Share): GenerateMessage {
  for (;;) {
    const seen = Atomics.load(counters, POSTED);
    const received = receiveMessageOnPort(port);
    if (!received) {
      // Nothing yet: sleep until the worker posts (POSTED changes) or the stall limit.
      if (Atomics.wait(counters, POSTED, seen, STALL_MS) === 'timed-out') throw new Error('The generator worker stopped answering.');
      continue;
    }
    Atomics.add(counters, TAKEN, 1);
    Atomics.notify(counters, TAKEN);
    return received.message as GenerateMessage;
  }
}

function stopShare({ worker, port, counters }: Share): void {
  port.close();
  // Woken from its wait for the taker, it sees STOP before its next batch.
  void stopWorker(worker, () => {
    Atomics.store(counters, STOP, 1);
    Atomics.notify(counters, TAKEN);
  });
}
