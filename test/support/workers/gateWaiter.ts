// A thread that waits on the verify's gate exactly as the verify's worker does (verifyGate.ts): it
// says it is about to wait, waits, then reports what the main thread had done by the time it woke.
import { parentPort, workerData } from 'node:worker_threads';
import { waitForRequests } from '../../../src/core/dataset/verify/verifyGate';

const { gate, released } = workerData as { gate: SharedArrayBuffer; released: SharedArrayBuffer };
parentPort!.postMessage('waiting');
waitForRequests(gate);
parentPort!.postMessage(Atomics.load(new Int32Array(released), 0));
