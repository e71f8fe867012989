// The record blocks' slots written ahead on a thread of their own (writeAhead.ts writeSlotsOnThread):
// a first write to a page of memory is a fault, ~22 µs a page of this shared memory on the slower VM
// of docs/performance.md, and the 40 MB of slots the start-up leaves unwritten are ~10,000 of them,
// paid by the first seconds' pages at depth on the requests' own threads. Here, at the lowest CPU
// priority, the kernel's work of mapping them lands on this thread instead; its mappings are the
// whole process's.
import { parentPort, workerData } from 'node:worker_threads';
import { lowerOwnThreadPriority } from '../workers/threadPriority';

const { memory, from, to } = workerData as { memory: SharedArrayBuffer; from: number; to: number };

lowerOwnThreadPriority();
const words = new Int32Array(memory);
// One word a 4 KB page (the smallest page of the systems the app runs on). The slots are the
// engine's while this runs: a block may be decompressed into one this instant, by a thread that knows
// nothing of this one. A compare-exchange of 0 for 0 writes only where it reads 0, and writes 0,
// indivisibly: no value anyone wrote changes, and the page is written (mapped) either way.
for (let word = Math.ceil(from / 4), end = Math.min(words.length, to / 4); word < end; word += 1024)
  Atomics.compareExchange(words, word, 0, 0);
parentPort!.postMessage('written');
