// The PID-order warm-up's worker thread (pidOrderWarmup.ts): on its own connection to the file, at
// the lowest CPU priority and waiting while a request computes before each step of ~1 ms, builds
// each listed state's PID order and hands it over (the arrays move to the engine's thread or are
// shared with it, not copied). Stops at the first failure: the first page of a state it did not do
// builds the order itself, as without a warm-up.
import { parentPort, workerData } from 'node:worker_threads';
import type { StateOrder } from '../dataset/format/pidRanks';
import { Dataset } from '../dataset/read/dataset';
import { datasetIdentity } from '../dataset/read/pieceFetch';
import { waitForRequests } from '../dataset/verify/verifyGate';
import { lowerOwnThreadPriority } from '../workers/threadPriority';

const { path, identity, states, gate } = workerData as { path: string; identity: string; states: string[]; gate: SharedArrayBuffer };

lowerOwnThreadPriority();
/**
 * The state's order, built a step at a time (a chunk of ranks, or a slice of them inverted: ~1 ms),
 * each once no request computes; null when the gate closed first (the engine's dataset closed: stop
 * here, between two native calls) or the file is in PID order.
 */
function stepwiseOrder(dataset: Dataset, state: string): StateOrder | null {
  const steps = dataset.pidOrderSteps(dataset.stateRange(state));
  for (;;) {
    if (!waitForRequests(gate)) return null;
    const step = steps.next();
    if (step.done) return step.value;
  }
}

const dataset = Dataset.open(path);
try {
  // Another file at the path since the engine opened it: nothing of it belongs to that engine.
  if (datasetIdentity(dataset.meta) === identity)
    for (const state of states) {
      const order = stepwiseOrder(dataset, state);
      if (!order) break;
      // The ranks move; the order is shared memory (pidRanks.ts), which is shared, not moved.
      parentPort!.postMessage({ state, ranks: order.ranks, order: order.order }, [order.ranks.buffer as ArrayBuffer]);
    }
} finally {
  dataset.close();
}
