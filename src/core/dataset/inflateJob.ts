// Reading a page's record blocks on two cores. A page of 100 scattered records in a file stored by
// household reads ~100 blocks, each ~40 µs to fetch from SQLite and ~60-100 µs of zstd on this
// machine: most of a search's time (docs/dataset-format.md, "Record order"). The job goes to the
// scan worker (query/scanWorker.ts), idle while a page is read, before the first block is fetched:
// the reading thread fetches and checks each block's frame and publishes it in shared memory, and
// the worker decompresses what is published meanwhile. Once all are fetched both threads claim
// blocks from a shared counter, as a split scan claims pieces (query/scanJob.ts), so a slow or
// absent worker costs nothing but its share, and the reading thread decompresses whatever the
// worker did not finish.
import type { ZstdDecompressor } from './zstdContext';

/** Who can take a job: the scan worker when it is running (query/twoCoreScan.ts); false: it cannot now. */
export interface BlockInflater {
  postInflate(job: InflateJob): boolean;
}

/**
 * control[NEXT]: the next block to claim; [DONE]: claimed blocks finished; [READY]: blocks
 * published; then a status a block, where each frame starts (n + 1), and where each block's output
 * starts and its size (n each).
 */
const NEXT = 0;
const DONE = 1;
const READY = 2;
const STATUS_AT = 3;
/** A block's status (0 while not finished): decompressed by the reading thread, by the worker, failed, or kept by the reader. */
export const BY_READER = 1;
export const BY_WORKER = 2;
const FAILED = -1;
const NOT_SHARED = 3;

/** What the worker receives (structured clone; the buffers are SharedArrayBuffers, not copied). */
export interface InflateJob {
  kind: 'inflate';
  blocks: number;
  /** The published frames, one after another. */
  frames: Uint8Array;
  /** Where each block is written (the reader's block slots, blockSlots.ts), exactly its size. */
  out: Uint8Array;
  control: Int32Array;
}

const frameAtIndex = (job: InflateJob, i: number): number => STATUS_AT + job.blocks + i;
const outFromIndex = (job: InflateJob, i: number): number => STATUS_AT + 2 * job.blocks + 1 + i;
const outSizeIndex = (job: InflateJob, i: number): number => STATUS_AT + 3 * job.blocks + 1 + i;
const frameAt = (job: InflateJob, i: number): number => job.control[frameAtIndex(job, i)]!;

/**
 * Shared memory a reader keeps for the frames of its jobs, grown when a job needs more: a new
 * SharedArrayBuffer a read made an export's memory climb past a gigabyte (they are freed late).
 */
export class InflateSpace {
  private frames = new SharedArrayBuffer(0);

  /** A job of `blocks` blocks written into `out`, none published yet, with room for frames of `frameRoom` bytes each. */
  job(blocks: number, out: SharedArrayBuffer, frameRoom: number): InflateJob {
    if (this.frames.byteLength < blocks * frameRoom) this.frames = new SharedArrayBuffer(blocks * frameRoom);
    return {
      kind: 'inflate',
      blocks,
      frames: new Uint8Array(this.frames),
      out: new Uint8Array(out),
      control: new Int32Array(new SharedArrayBuffer(4 * (STATUS_AT + 4 * blocks + 1))),
    };
  }

  /** After a job the worker may not have finished: it may still read, so its memory is not reused. */
  abandon(): void {
    this.frames = new SharedArrayBuffer(0);
  }
}

/**
 * Publishes block i (the next one): its checked frame, to be decompressed to `size` bytes at
 * `outFrom` of job.out; or, with a null frame (or one too large for the shared room), marks it as
 * the reader's own.
 */
function publish(job: InflateJob, i: number, frame: Uint8Array | null, outFrom: number, size: number): void {
  const from = frameAt(job, i);
  const fits = frame !== null && from + frame.byteLength <= job.frames.byteLength && outFrom + size <= job.out.byteLength;
  if (fits) {
    job.frames.set(frame, from);
    job.control[outFromIndex(job, i)] = outFrom;
    job.control[outSizeIndex(job, i)] = size;
  } else Atomics.store(job.control, STATUS_AT + i, NOT_SHARED);
  job.control[frameAtIndex(job, i + 1)] = fits ? from + frame.byteLength : from;
  Atomics.store(job.control, READY, i + 1);
  Atomics.notify(job.control, READY);
}

/** Marks every block not yet published as the reader's own (a read that stops early: damage). */
function withholdRest(job: InflateJob): void {
  for (let i = Atomics.load(job.control, READY); i < job.blocks; i++) publish(job, i, null, 0, 0);
}

const statusOf = (job: InflateJob, i: number): number => Atomics.load(job.control, STATUS_AT + i);

/** Waits (up to `patienceMs`) until block i is published; false if it was not. */
function awaitPublished(job: InflateJob, i: number, patienceMs: number): boolean {
  const deadline = performance.now() + patienceMs;
  for (let ready = Atomics.load(job.control, READY); ready <= i; ready = Atomics.load(job.control, READY)) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(job.control, READY, ready, left);
  }
  return true;
}

/**
 * Claims blocks until none is left, decompressing each into its place in job.out once it is
 * published. A frame that does not decompress is FAILED: the reading thread decompresses it again
 * and reports the damage itself. A block not published within `patienceMs` is left to the reader.
 */
export function inflateClaimed(job: InflateJob, decompressor: ZstdDecompressor, byWorker: boolean, patienceMs: number): void {
  for (;;) {
    const i = Atomics.add(job.control, NEXT, 1);
    if (i >= job.blocks) return;
    const published = awaitPublished(job, i, patienceMs);
    if (published && statusOf(job, i) === 0) {
      let status = byWorker ? BY_WORKER : BY_READER;
      try {
        const from = job.control[outFromIndex(job, i)]!;
        const out = job.out.subarray(from, from + job.control[outSizeIndex(job, i)]!);
        decompressor.decompressInto(job.frames.subarray(frameAt(job, i), frameAt(job, i + 1)), out);
      } catch {
        status = FAILED;
      }
      Atomics.store(job.control, STATUS_AT + i, status);
    }
    Atomics.add(job.control, DONE, 1);
    Atomics.notify(job.control, DONE);
    if (!published) return;
  }
}

/** Tests: waits (up to `patienceMs`) until the worker has claimed a block, so that it surely takes part. */
function awaitFirstClaim(job: InflateJob, patienceMs: number): void {
  const deadline = performance.now() + patienceMs;
  while (Atomics.load(job.control, NEXT) === 0 && performance.now() < deadline) Atomics.wait(job.control, NEXT, 0, 1);
}

/**
 * Waits until every claimed block is finished, or `patienceMs` passed; true when all were. The
 * reading thread calls it after claiming until none was left, so what it waits for is the worker's.
 */
function awaitInflated(job: InflateJob, patienceMs: number): boolean {
  const claimed = Math.min(Atomics.exchange(job.control, NEXT, job.blocks), job.blocks);
  const deadline = performance.now() + patienceMs;
  for (let done = Atomics.load(job.control, DONE); done < claimed; done = Atomics.load(job.control, DONE)) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(job.control, DONE, done, left);
  }
  return true;
}

/** What a shared read asks of its caller for item i: fetch and check it, and say where it goes. */
export interface SharedItem {
  /** The checked frame, or null for an item the reading thread keeps for itself. */
  frame: Uint8Array | null;
  /** Where in the job's `out` it decompresses to, and its exact size. */
  outFrom: number;
  size: number;
}

/**
 * A read of `count` items on two cores: the job is posted first, then each item is fetched
 * (`fetch(i)`, which throws on damage) and published, so the worker decompresses while the rest are
 * fetched; then both threads claim what is left. Returns each item's status (BY_READER or
 * BY_WORKER: decompressed into its place; anything else: the caller decompresses it itself), or
 * null when the worker cannot take a job now. When a fetch throws or the worker is late, the
 * frames' memory and `out` are left to the worker (`leave()` is called for `out`).
 */
export function readShared(
  inflater: BlockInflater,
  space: InflateSpace,
  count: number,
  out: SharedArrayBuffer,
  frameRoom: number,
  fetch: (i: number) => SharedItem,
  decompressor: ZstdDecompressor,
  options: { patienceMs: number; workerFirst: boolean; leave: () => void },
): Int32Array | null {
  const job = space.job(count, out, frameRoom);
  if (!inflater.postInflate(job)) return null;
  try {
    for (let i = 0; i < count; i++) {
      const { frame, outFrom, size } = fetch(i);
      publish(job, i, frame, outFrom, size);
    }
  } catch (e) {
    // Damage found before the worker saw the item: it is told the rest are not coming.
    withholdRest(job);
    space.abandon();
    options.leave();
    throw e;
  }
  if (options.workerFirst) awaitFirstClaim(job, options.patienceMs);
  inflateClaimed(job, decompressor, false, options.patienceMs);
  if (!awaitInflated(job, options.patienceMs)) {
    space.abandon();
    options.leave();
  }
  return Int32Array.from({ length: count }, (_, i) => statusOf(job, i));
}
