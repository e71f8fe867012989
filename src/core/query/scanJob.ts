// What the calling thread and the scan worker say to each other (twoCoreScan.ts, scanWorker.ts): a
// module of its own, since importing the worker's module would run it.
import type { ScanPredicate } from './scanKernels';

/** What the worker posts once it takes jobs. */
export const SCAN_WORKER_READY = 'scan worker ready';

export interface ScanJob {
  id: number;
  predicates: ScanPredicate[];
  first: number;
  end: number;
  countOnly: boolean;
  /** [job id done, its count (-1: failed)] */
  control: Int32Array;
  /** Where the positions go (a count of three filters or more lists them before its last pass). */
  out: Uint32Array;
}
