// The record blocks' slots written ahead on a thread of their own (writeAhead.ts writeSlotsOnThread):
// a first write to a page of memory is a fault, ~22 µs a page of this shared memory on the slower VM
// of docs/performance.md, and the 40 MB of slots the start-up leaves unwritten are ~10,000 of them,
// paid by the first seconds' pages at depth on the requests' own threads. Here, at the lowest CPU
// priority, the kernel's work of mapping them lands on this thread instead; its mappings are the
// whole process's. It steps aside while a request computes (the engine's gate): at the lowest
// priority it still took a third of the main thread's core during a fresh serve's first request,
// California's first page at 10M, when both cores had more threads than they could run.
import { parentPort, workerData } from 'node:worker_threads';
import { waitForRequests } from '../dataset/verify/verifyGate';
import { lowerOwnThreadPriority } from '../workers/threadPriority';

const { memory, from, to, gate } = workerData as { memory: SharedArrayBuffer; from: number; to: number; gate?: SharedArrayBuffer };

/** Pages written between two looks at the gate: 256 KB, ~1.4 ms at 22 µs a page, the most a request waits for a core. */
const PAGES_A_STEP = 64;

lowerOwnThreadPriority();
const words = new Int32Array(memory);
const end = Math.min(words.length, to / 4);
// One word a 4 KB page (the smallest page of the systems the app runs on). The slots are the
// engine's while this runs: a block may be decompressed into one this instant, by a thread that knows
// nothing of this one. A compare-exchange of 0 for 0 writes only where it reads 0, and writes 0,
// indivisibly: no value anyone wrote changes, and the page is written (mapped) either way.
let word = Math.ceil(from / 4);
let open = true;
while (word < end) {
  // A closed gate (the dataset closed): stop here, unwritten; the engine then counts nothing as written.
  open = !gate || waitForRequests(gate);
  if (!open) break;
  for (const stepEnd = Math.min(end, word + PAGES_A_STEP * 1024); word < stepEnd; word += 1024) Atomics.compareExchange(words, word, 0, 0);
}
if (open) parentPort!.postMessage('written');
