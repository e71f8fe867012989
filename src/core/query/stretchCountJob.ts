// Counting an audience's matches in many stretches of a state's PID order at once, on two cores: what
// a first page at depth needs before its own stretch (storedPidOrder.ts, OrderWalkSelection). One
// thread walked them in turn: before the engine keeps the state's whole order, decoding chunk after
// chunk of the stored order (~0.75 ms each on the slower VM of docs/performance.md; California at
// 30M has 54); after, testing ~3M ranks of memory there. Here the calling thread and the scan worker
// (scanWorker.ts) claim chunks from a shared counter, as a split scan claims pieces (scanJob.ts):
// chunks of the stored order, each decoded through the thread's own connection to the file, or
// stretches of the kept order in shared memory; each thread adds a chunk's matches to the stretches
// it covers once the whole chunk is counted, so one that fails adds nothing, and the calling thread
// counts it again itself. A module of its own, since importing the worker's module would run it.
import type { PieceSource } from '../dataset/read/pieceFetch';
import { awaitClaimed, CLAIM_NEXT, CLAIMS_DONE } from '../workers/sharedClaims';

/** control[CLAIM_NEXT] and [CLAIMS_DONE] (workers/sharedClaims.ts), then a status a chunk. */
const HEADER = 2;
/** A chunk's status (0 while not finished): counted by the calling thread or by the worker; FAILED, not. */
export const BY_CALLER = 1;
export const BY_WORKER = 2;
const FAILED = -1;

/** What the worker receives (structured clone; marks, counts and control are on SharedArrayBuffers, not copied). */
export interface StretchCountJob {
  kind: 'stretchCounts';
  /** The stored order's chunks (pieceFetch.ts, kind 'order'), or null when counting from `kept`. */
  source: PieceSource | null;
  /**
   * The state's whole order when the engine keeps it in shared memory (its r-th lowest PID's offset
   * at r): then `first` is 0 and a "chunk" is `chunkSize` ranks of it, read from memory.
   */
  kept: Uint32Array | null;
  /** The state's first position; ranks are positions minus it. */
  first: number;
  /** The ranks counted: [rankFrom, rankTo), whole stretches. */
  rankFrom: number;
  rankTo: number;
  /** Ranks a stretch; rankFrom is a multiple of it. */
  stretch: number;
  /** Positions a chunk of the stored order holds. */
  chunkSize: number;
  /** A bit a person of the state (offset from `first`) for each match. */
  marks: Uint8Array;
  /** counts[i]: the matches among ranks of stretch rankFrom / stretch + i. */
  counts: Int32Array;
  control: Int32Array;
}

/** The chunks of the stored order that hold ranks [rankFrom, rankTo) of the state at `first`: [from, to). */
export function chunksOf(job: Pick<StretchCountJob, 'first' | 'rankFrom' | 'rankTo' | 'chunkSize'>): { from: number; to: number } {
  return {
    from: Math.floor((job.first + job.rankFrom) / job.chunkSize),
    to: Math.floor((job.first + job.rankTo - 1) / job.chunkSize) + 1,
  };
}

/**
 * A job counting the whole stretches [stretchFrom, stretchTo) of the state at `first` of `count`
 * people, from the stored order (`source`) or the kept one (`kept`, with `first` 0); marks and kept
 * must be shared memory.
 */
export function stretchCountJob(
  from: { source: PieceSource; kept?: undefined } | { source?: undefined; kept: Uint32Array },
  where: { first: number; count: number; chunkSize: number },
  marks: Uint8Array,
  stretch: number,
  stretchFrom: number,
  stretchTo: number,
): StretchCountJob {
  const rankFrom = stretchFrom * stretch;
  const rankTo = Math.min(where.count, stretchTo * stretch);
  const base = { first: where.first, rankFrom, rankTo, chunkSize: where.chunkSize };
  const chunks = chunksOf(base);
  return {
    kind: 'stretchCounts',
    source: from.source ?? null,
    kept: from.kept ?? null,
    ...base,
    stretch,
    marks,
    counts: new Int32Array(new SharedArrayBuffer(4 * (stretchTo - stretchFrom))),
    control: new Int32Array(new SharedArrayBuffer(4 * (HEADER + chunks.to - chunks.from))),
  };
}

/**
 * How many of offsets[from..to) have their bit set in `marks`: the loop a walk passes a slice of
 * ranks with, and counts a chunk with. One small function, compiled before the first request
 * (warmUpStretchCounts), since an uncompiled walk cost ~30 ns a rank (California at 10M: ~30 ms for
 * a page at depth, besides reading the order).
 */
export function countMarked(offsets: Uint32Array, from: number, to: number, marks: Uint8Array): number {
  let n = 0;
  for (let q = from; q < to; q++) {
    const offset = offsets[q]!;
    n += (marks[offset >>> 3]! >>> (offset & 7)) & 1;
  }
  return n;
}

/** Compiles countMarked for the marks a walk meets (in shared memory or not), before any request needs it. */
export function warmUpStretchCounts(): void {
  const size = 16_384;
  const offsets = Uint32Array.from({ length: size }, (_, k) => (k * 7919) % size);
  const kinds = [new Uint8Array(new SharedArrayBuffer(size / 8)), new Uint8Array(size / 8)];
  for (const marks of kinds) marks.fill(0x55);
  for (let round = 0; round < 40; round++) countMarked(offsets, 0, size, kinds[round & 1]!);
}

/** A slice of `chunkSize` ranks of a kept order, counted as a chunk of the stored one is. */
export function keptSlice(job: StretchCountJob, c: number): Uint32Array {
  return job.kept!.subarray(c * job.chunkSize, (c + 1) * job.chunkSize);
}

/**
 * The matches of chunk `c` (its values: for each position, the state's offset at that rank) among
 * the job's ranks, added to the stretches they fall in once all are counted.
 */
function countChunk(job: StretchCountJob, c: number, values: Uint32Array): void {
  const { first, stretch, marks } = job;
  const base = c * job.chunkSize;
  const lo = Math.max(base, first + job.rankFrom);
  const hi = Math.min(base + values.length, first + job.rankTo);
  const firstStretch = Math.floor((lo - first) / stretch);
  // A chunk as long as a stretch covers parts of two at most.
  const found: number[] = [];
  for (let p = lo, j = firstStretch; p < hi; j++) {
    const end = Math.min(hi, first + (j + 1) * stretch);
    found.push(countMarked(values, p - base, end - base, marks));
    p = end;
  }
  const at = firstStretch - job.rankFrom / stretch;
  found.forEach((n, k) => Atomics.add(job.counts, at + k, n));
}

/**
 * Claims chunks until none is left and counts each; `chunkOf(c)` decodes chunk c of the stored order
 * (a view valid until its next call) and throws on damage, which marks the chunk FAILED.
 */
export function claimStretchChunks(job: StretchCountJob, chunkOf: (c: number) => Uint32Array, byWorker: boolean): void {
  const { from, to } = chunksOf(job);
  for (;;) {
    const i = Atomics.add(job.control, CLAIM_NEXT, 1);
    if (i >= to - from) return;
    let status = byWorker ? BY_WORKER : BY_CALLER;
    try {
      countChunk(job, from + i, chunkOf(from + i));
    } catch {
      status = FAILED;
    }
    Atomics.store(job.control, HEADER + i, status);
    Atomics.add(job.control, CLAIMS_DONE, 1);
    Atomics.notify(job.control, CLAIMS_DONE);
  }
}

/**
 * The calling thread's part, after it claimed until none was left: waits up to `patienceMs` for the
 * worker's chunks, then counts any that failed itself (its chunkOf reports damage). The counts, or
 * null when the worker was late: it may still add to them, so they are left, and the walk counts alone.
 */
export function finishStretchCounts(job: StretchCountJob, chunkOf: (c: number) => Uint32Array, patienceMs: number): Int32Array | null {
  const { from, to } = chunksOf(job);
  const n = to - from;
  if (!awaitClaimed(job.control, n, patienceMs)) return null;
  for (let i = 0; i < n; i++) if (Atomics.load(job.control, HEADER + i) === FAILED) countChunk(job, from + i, chunkOf(from + i));
  return job.counts;
}

/** Whether the worker counted any chunk of the job (tests, and the engine's tally of shared work). */
export function workerTookPart(job: StretchCountJob): boolean {
  const { from, to } = chunksOf(job);
  for (let i = 0; i < to - from; i++) if (Atomics.load(job.control, HEADER + i) === BY_WORKER) return true;
  return false;
}
