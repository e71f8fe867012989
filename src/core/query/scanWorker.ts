// The second core's half of a filter scan (twoCoreScan.ts). The vectors arrive as views of the
// dataset's shared memory, so nothing is copied; the matched positions go into a shared list, and
// the count into `control`, whose first slot then names the job (the main thread waits on it).
import { parentPort } from 'node:worker_threads';
import { matchRange, type ScanPredicate } from './scanKernels';

export interface ScanJob {
  id: number;
  predicates: ScanPredicate[];
  first: number;
  end: number;
  countOnly: boolean;
  /** [job id done, its count (-1: failed)] */
  control: Int32Array;
  /** Where the positions go (not used for a count). */
  out: Uint32Array;
}

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
