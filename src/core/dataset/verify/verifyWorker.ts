// The background verify's worker thread (verify.ts): checks the whole file on its own connection,
// at the lowest CPU priority and waiting while a request runs (verifyGate.ts), and posts the result.
import { readlinkSync } from 'node:fs';
import { setPriority, constants } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { waitForRequests } from './verifyGate';
import { verifyDatasetFile } from './verifyFile';

const { path, gate } = workerData as { path: string; gate: SharedArrayBuffer | null };

/**
 * Linux schedules threads one by one, and a thread's own id names it to setpriority: this thread
 * alone goes to the lowest priority, so the request's thread and the scan worker run first.
 * Elsewhere (no /proc/thread-self) the thread keeps the process's priority and the gate alone yields.
 */
function lowerOwnPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: the gate still yields.
  }
}

lowerOwnPriority();
parentPort!.postMessage(verifyDatasetFile(path, gate ? () => waitForRequests(gate) : undefined));
