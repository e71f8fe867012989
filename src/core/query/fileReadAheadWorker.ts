// The read-ahead's thread (fileReadAhead.ts): on its own connection to the file, at the lowest CPU
// priority, waiting while a request computes, it reads what fileReadAheadSteps.ts lists and posts
// what it did. A request that meets the disk meanwhile has it to itself between two steps. Stops at
// a closed gate (the engine's dataset closed), at a file no longer the engine's, and at any failure:
// a request then reads from the disk what was not read ahead, and reports any damage itself.
import { parentPort, workerData } from 'node:worker_threads';
import { Dataset } from '../dataset/read/dataset';
import { datasetIdentity } from '../dataset/read/pieceFetch';
import { waitForRequests } from '../dataset/verify/verifyGate';
import { lowerOwnThreadPriority } from '../workers/threadPriority';
import { readAheadSteps, type ReadAheadCounts } from './fileReadAheadSteps';

const { path, identity, gate } = workerData as { path: string; identity: string; gate: SharedArrayBuffer };

lowerOwnThreadPriority();
const counts: ReadAheadCounts = { blocks: 0, lookups: 0 };
let finished = false;
const dataset = Dataset.open(path);
try {
  if (datasetIdentity(dataset.meta) === identity) {
    finished = true;
    for (const _ of readAheadSteps(dataset, dataset.blockReadAhead(), counts)) {
      // Between two native calls: a closed gate ends the thread here.
      if (!waitForRequests(gate)) {
        finished = false;
        break;
      }
    }
  }
} finally {
  dataset.close();
}
if (finished) parentPort!.postMessage(counts);
