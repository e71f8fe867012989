// The second core's half of a filter scan (twoCoreScan.ts). The vectors arrive as views of the
// dataset's shared memory, so nothing is copied; the matched positions go into a shared list, and
// the count into `control`, whose first slot then names the job (the main thread waits on it).
import { parentPort } from 'node:worker_threads';
import { SCAN_WORKER_READY, type ScanJob } from './scanJob';
import { matchRange, warmUpScans } from './scanKernels';

parentPort!.on('message', (job: ScanJob) => {
  let n = -1;
  try {
    n = matchRange(job.predicates, job.first, job.end, job.out, job.countOnly);
  } catch {
    // -1 tells the main thread to scan this half itself; the error is its to find again.
  }
  Atomics.store(job.control, 1, n);
  Atomics.store(job.control, 0, job.id);
  Atomics.notify(job.control, 0);
});

// Loaded, compiled and listening: until this arrives the main thread scans alone (a worker is
// 'online' before its modules are loaded, ~0.1 s from sources under tsx, and a job sent then waited
// that long).
warmUpScans();
parentPort!.postMessage(SCAN_WORKER_READY);
