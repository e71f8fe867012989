// The calling thread's side of counting many stretches of a stored PID order at once
// (stretchCountJob.ts): for a first page at depth in a state whose whole order the engine does not
// keep yet, the scan worker and this thread count the stretches before the page's on two cores.
import type { StateRange } from '../dataset/format/datasetTypes';
import type { PieceSource } from '../dataset/read/pieceFetch';
import { awaitFirstClaim } from '../workers/sharedClaims';
import {
  claimStretchChunks,
  finishStretchCounts,
  keptSlice,
  stretchCountJob,
  workerTookPart,
  type StretchCountJob,
} from './stretchCountJob';

/** Who counts beside this thread: the scan worker when it is running (twoCoreScan.ts); false: it cannot now. */
export interface StretchCountWorker {
  postStretchCounts(job: StretchCountJob): boolean;
}

/** How long this thread waits for chunks the worker claimed before it gives the counts up to the walk. */
const WORKER_PATIENCE_MS = 2000;

export class StretchCounter {
  /** Counts the worker took part in (tests). */
  sharedCounts = 0;
  /** Tests: this thread waits for the worker to claim a chunk before it claims any. */
  workerFirst = false;

  constructor(
    /** The stored order's chunks, as the worker reads them (Dataset.pidOrderSource). */
    private readonly source: PieceSource & { kind: 'order' },
    private readonly worker: StretchCountWorker,
  ) {}

  /**
   * The matches in the whole stretches [from, to) of `stretch` ranks of the state at `range`, or null
   * when they are not counted here: marks not in shared memory (a one-core scan's), or no worker now.
   * `chunkOf(c)`: this thread's own decode of the order's chunk c, which reports damage.
   */
  count(
    range: StateRange,
    marks: Uint8Array,
    stretch: number,
    from: number,
    to: number,
    chunkOf: (c: number) => Uint32Array,
  ): Int32Array | null {
    const where = { first: range.first, count: range.count, chunkSize: this.source.chunkSize };
    return this.run(stretchCountJob({ source: this.source }, where, marks, stretch, from, to), marks, chunkOf);
  }

  /**
   * As count(), from the state's whole order the engine keeps (`kept`: its r-th lowest PID's offset
   * at r), read from memory a stretch at a time; null when it is not in shared memory.
   */
  countKept(kept: Uint32Array, marks: Uint8Array, stretch: number, from: number, to: number): Int32Array | null {
    if (!(kept.buffer instanceof SharedArrayBuffer)) return null;
    const job = stretchCountJob({ kept }, { first: 0, count: kept.length, chunkSize: stretch }, marks, stretch, from, to);
    return this.run(job, marks, (c) => keptSlice(job, c));
  }

  private run(job: StretchCountJob, marks: Uint8Array, chunkOf: (c: number) => Uint32Array): Int32Array | null {
    if (!(marks.buffer instanceof SharedArrayBuffer)) return null;
    if (!this.worker.postStretchCounts(job)) return null;
    if (this.workerFirst) awaitFirstClaim(job.control, WORKER_PATIENCE_MS);
    claimStretchChunks(job, chunkOf, false);
    const counts = finishStretchCounts(job, chunkOf, WORKER_PATIENCE_MS);
    if (counts && workerTookPart(job)) this.sharedCounts++;
    return counts;
  }
}
