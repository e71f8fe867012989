// The calling thread's side of counting many stretches of a stored PID order at once
// (stretchCountJob.ts): for a first page at depth in a state whose whole order the engine does not
// keep yet, the scan worker and this thread count the stretches before the page's on two cores.
import type { StateRange } from '../dataset/format/datasetTypes';
import type { PieceSource } from '../dataset/read/pieceFetch';
import { awaitFirstClaim } from '../workers/sharedClaims';
import { claimStretchChunks, finishStretchCounts, stretchCountJob, workerTookPart, type StretchCountJob } from './stretchCountJob';

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
    if (!(marks.buffer instanceof SharedArrayBuffer)) return null;
    const where = { first: range.first, count: range.count, chunkSize: this.source.chunkSize };
    const job = stretchCountJob(this.source, where, marks, stretch, from, to);
    if (!this.worker.postStretchCounts(job)) return null;
    if (this.workerFirst) awaitFirstClaim(job.control, WORKER_PATIENCE_MS);
    claimStretchChunks(job, chunkOf, false);
    const counts = finishStretchCounts(job, chunkOf, WORKER_PATIENCE_MS);
    if (counts && workerTookPart(job)) this.sharedCounts++;
    return counts;
  }
}
