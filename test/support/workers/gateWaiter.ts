// A thread that waits on the verify's gate exactly as the verify's worker does (verifyGate.ts): it
// says it is about to wait, waits (for requests to be quiet `quietMs`, 0 by default, at most
// `patienceMs` when given), then reports what the main thread had done by the time it woke, when it
// began waiting and when it woke (Date.now()).
import { parentPort, workerData } from 'node:worker_threads';
import { waitForRequests } from '../../../src/core/dataset/verify/verifyGate';

const { gate, released, quietMs, patienceMs } = workerData as {
  gate: SharedArrayBuffer;
  released: SharedArrayBuffer;
  quietMs?: number;
  patienceMs?: number;
};
parentPort!.postMessage('waiting');
const began = Date.now();
waitForRequests(gate, quietMs ?? 0, patienceMs);
parentPort!.postMessage({ released: Atomics.load(new Int32Array(released), 0), began, at: Date.now() });
