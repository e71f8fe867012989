// The background verify's worker thread (verify.ts): checks the whole file on its own connection,
// at the lowest CPU priority and waiting while requests run and a moment after (verifyGate.ts), and posts the result.
import { parentPort, workerData } from 'node:worker_threads';
import { lowerOwnThreadPriority } from '../../workers/threadPriority';
import { VERIFY_PATIENCE_MS, VERIFY_QUIET_MS, waitForRequests } from './verifyGate';
import { verifyDatasetFile } from './verifyFile';

const { path, gate } = workerData as { path: string; gate: SharedArrayBuffer };

lowerOwnThreadPriority();
// A closed gate (the dataset closed) ends this thread between two steps, never inside a native call.
const betweenSteps = () => {
  if (!waitForRequests(gate, VERIFY_QUIET_MS, VERIFY_PATIENCE_MS)) process.exit(0);
};
parentPort!.postMessage(verifyDatasetFile(path, betweenSteps));
