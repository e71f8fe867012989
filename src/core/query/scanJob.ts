// What the calling thread and the scan worker share for one scan (twoCoreScan.ts, scanWorker.ts):
// the state's positions cut into pieces, which both threads claim one at a time from a shared
// counter until none is left. A module of its own, since importing the worker's module would run it.
//
// Claiming instead of halving: when the worker is late (woken late, or its core busy with other
// work on a shared machine) the calling thread takes its pieces, so a scan never waits on the worker
// for more than the piece it is in.
import { markRange } from './markKernels';
import { matchRange, type ScanPredicate } from './scanKernels';

/** What the worker posts once it takes jobs. */
export const SCAN_WORKER_READY = 'scan worker ready';

/**
 * What the worker is sent instead of worker.terminate(): it ends itself once the call it is in
 * returns. better-sqlite3 13 aborts the whole process when a thread is terminated inside one of its
 * calls (dataset/verify/verifyGate.ts), and this worker reads the file through it.
 */
export const SCAN_WORKER_STOP = 'scan worker stop';

/** Pieces a scan is cut into. */
export const PIECES = 8;

// Slots of a job's control array (Int32Array over shared memory, one a job).
/** The next piece to claim (past PIECES: none left). */
export const NEXT = 0;
/** Pieces finished, by either thread. */
export const DONE = 1;
/** Where piece k's count + 1 is: 0 while it is not done, -1 when it failed. */
export const COUNT_AT = 2;
/** Where 1 says the worker scanned piece k (its positions are in the job's `out`). */
export const BY_WORKER_AT = COUNT_AT + PIECES;
export const CONTROL_SLOTS = BY_WORKER_AT + PIECES;

export interface ScanJob {
  predicates: ScanPredicate[];
  /** The state's first position: piece k's positions go to [bounds[k] - first, …) of a thread's list. */
  first: number;
  /** PIECES + 1 positions: piece k is [bounds[k], bounds[k + 1]). */
  bounds: number[];
  countOnly: boolean;
  /** When set (shared), the matches are a bit a person from `first` here, not a list (markKernels.ts). */
  marks?: Uint8Array;
  control: Int32Array;
  /** The worker's list (shared); the calling thread lists into its own. */
  out: Uint32Array;
}

/** Piece boundaries over [first, end), multiples of 4 inside so one-byte vectors are read a whole word at a time. */
export function pieceBounds(first: number, end: number): number[] {
  const bounds = [first];
  for (let k = 1; k < PIECES; k++) bounds.push(Math.max(first, (first + Math.floor(((end - first) * k) / PIECES)) & ~3));
  bounds.push(end);
  return bounds;
}

/** Piece boundaries for marks: multiples of 8 from `first`, so each piece writes whole bytes of its own. */
export function markPieceBounds(first: number, end: number): number[] {
  const bounds = [first];
  for (let k = 1; k < PIECES; k++) bounds.push(first + (Math.floor(((end - first) * k) / PIECES) & ~7));
  bounds.push(end);
  return bounds;
}

/**
 * Claims and scans pieces of `job` until none is left, listing into `out` (a piece's positions
 * at its offset from the state's first), or marking into the job's shared marks. Each piece's
 * count is stored, then DONE is counted up, also when the piece throws (it is then marked failed
 * and the error goes on). `between` runs after each piece (the calling thread's time budget).
 */
export function scanPieces(job: ScanJob, out: Uint32Array, byWorker: boolean, between: () => void = () => undefined): void {
  const { control, bounds } = job;
  for (;;) {
    const k = Atomics.add(control, NEXT, 1);
    if (k >= PIECES) return;
    let n = -1;
    try {
      const from = bounds[k]!;
      n = job.marks
        ? markRange(job.predicates, from, bounds[k + 1]!, job.marks, job.first)
        : matchRange(job.predicates, from, bounds[k + 1]!, out.subarray(from - job.first), job.countOnly);
    } finally {
      control[BY_WORKER_AT + k] = byWorker ? 1 : 0;
      control[COUNT_AT + k] = n < 0 ? -1 : n + 1;
      Atomics.add(control, DONE, 1);
      Atomics.notify(control, DONE);
    }
    between();
  }
}
