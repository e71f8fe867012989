// Writes ahead the pieces of the main thread's native heap it is handed, then frees them
// (nativeHeapAhead.ts): the faults of mapping their pages land on this thread, beside the main
// thread's start-up, not inside the first requests. At the normal priority: it runs while the
// dataset opens and should be done before the server listens, not wait for the start-up's work.
import { parentPort, workerData } from 'node:worker_threads';
import { writeAndRelease } from './nativeHeapPages';

parentPort!.postMessage(writeAndRelease(workerData as ArrayBuffer[]));
