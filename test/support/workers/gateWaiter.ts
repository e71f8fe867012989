// A thread that waits on the verify's gate exactly as the verify's worker does (verifyGate.ts): it
// says it is about to wait, waits (for requests to be quiet `quietMs`, 0 by default), then reports
// what the main thread had done by the time it woke and when (Date.now()).
import { parentPort, workerData } from 'node:worker_threads';
import { waitForRequests } from '../../../src/core/dataset/verify/verifyGate';

const { gate, released, quietMs } = workerData as { gate: SharedArrayBuffer; released: SharedArrayBuffer; quietMs?: number };
parentPort!.postMessage('waiting');
waitForRequests(gate, quietMs ?? 0);
parentPort!.postMessage({ released: Atomics.load(new Int32Array(released), 0), at: Date.now() });
