// Decompressing a page's record blocks on two cores. A page of 100 scattered records in a file
// stored by household reads ~100 blocks, each ~60 µs of zstd on this machine: most of a search's
// time (docs/dataset-format.md, "Record order"). The reading thread checks the blocks' checksums,
// copies the frames into shared memory and hands the job to the scan worker (query/scanWorker.ts),
// which is idle while a page is read; both threads then claim blocks from a shared counter, as a
// split scan claims pieces (query/scanJob.ts), so a slow or absent worker costs nothing but its
// share, and the reading thread decompresses whatever the worker did not finish.
import type { ZstdDecompressor } from './zstdContext';

/** Who can take a job: the scan worker when it is running (query/twoCoreScan.ts); false: it cannot now. */
export interface BlockInflater {
  postInflate(job: InflateJob): boolean;
}

/** control[NEXT]: the next block to claim; control[DONE]: blocks finished; then a status a block. */
const NEXT = 0;
const DONE = 1;
const STATUS_AT = 2;
/** A block's status (0 while not finished): decompressed by the reading thread, by the worker, or failed. */
export const BY_READER = 1;
export const BY_WORKER = 2;
export const FAILED = -1;

/** What the worker receives (structured clone; the buffers are SharedArrayBuffers, not copied). */
export interface InflateJob {
  kind: 'inflate';
  /** The blocks' zstd frames, one after another; frame i is [frameAt[i], frameAt[i + 1]). */
  frames: Uint8Array;
  frameAt: Int32Array;
  /** Where the worker writes block i: [outAt[i], outAt[i + 1]) of `out`, exactly its size. */
  out: Uint8Array;
  outAt: Int32Array;
  control: Int32Array;
}

/**
 * Shared memory a reader keeps for its jobs, grown when a job needs more: a new SharedArrayBuffer a
 * read made an export's memory climb past a gigabyte (they are freed late), so one pair is reused.
 */
export class InflateSpace {
  private frames = new SharedArrayBuffer(0);
  private out = new SharedArrayBuffer(0);

  /** A job over `frames`, whose decompressed sizes are `sizes` (checked against their headers already). */
  job(frames: readonly Uint8Array[], sizes: readonly number[]): InflateJob {
    const frameAt = new Int32Array(frames.length + 1);
    const outAt = new Int32Array(frames.length + 1);
    frames.forEach((f, i) => {
      frameAt[i + 1] = frameAt[i]! + f.byteLength;
      outAt[i + 1] = outAt[i]! + sizes[i]!;
    });
    if (this.frames.byteLength < frameAt[frames.length]!) this.frames = new SharedArrayBuffer(frameAt[frames.length]! * 2);
    if (this.out.byteLength < outAt[frames.length]!) this.out = new SharedArrayBuffer(outAt[frames.length]! * 2);
    const shared = new Uint8Array(this.frames, 0, frameAt[frames.length]!);
    frames.forEach((f, i) => shared.set(f, frameAt[i]!));
    return {
      kind: 'inflate',
      frames: shared,
      frameAt,
      out: new Uint8Array(this.out, 0, outAt[frames.length]!),
      outAt,
      control: new Int32Array(new SharedArrayBuffer(4 * (STATUS_AT + frames.length))),
    };
  }

  /** After a job the worker did not finish in time: it may still write, so its memory is not reused. */
  abandon(): void {
    this.frames = new SharedArrayBuffer(0);
    this.out = new SharedArrayBuffer(0);
  }
}

export const blocksOf = (job: InflateJob): number => job.frameAt.length - 1;

export const statusOf = (job: InflateJob, i: number): number => Atomics.load(job.control, STATUS_AT + i);

/**
 * Claims blocks until none is left, decompressing each into `into(i)` (the worker: its place in
 * job.out; the reading thread: a buffer of its own). A frame that does not decompress is FAILED:
 * the reading thread decompresses it again and reports the damage itself.
 */
export function inflateClaimed(job: InflateJob, decompressor: ZstdDecompressor, byWorker: boolean, into: (i: number) => Uint8Array): void {
  const n = blocksOf(job);
  for (;;) {
    const i = Atomics.add(job.control, NEXT, 1);
    if (i >= n) return;
    let status = byWorker ? BY_WORKER : BY_READER;
    try {
      decompressor.decompressInto(job.frames.subarray(job.frameAt[i]!, job.frameAt[i + 1]!), into(i));
    } catch {
      status = FAILED;
    }
    Atomics.store(job.control, STATUS_AT + i, status);
    Atomics.add(job.control, DONE, 1);
    Atomics.notify(job.control, DONE);
  }
}

/** The worker's place for block i. */
export const workerTarget = (job: InflateJob, i: number): Uint8Array => job.out.subarray(job.outAt[i]!, job.outAt[i + 1]!);

/** Tests: waits (up to `patienceMs`) until the worker has claimed a block, so that it surely takes part. */
export function awaitFirstClaim(job: InflateJob, patienceMs: number): void {
  const deadline = performance.now() + patienceMs;
  while (Atomics.load(job.control, NEXT) === 0 && performance.now() < deadline) Atomics.wait(job.control, NEXT, 0, 1);
}

/**
 * Waits until every claimed block is finished, or `patienceMs` passed; true when all were. The
 * reading thread calls it after claiming until none was left, so what it waits for is the worker's.
 */
export function awaitInflated(job: InflateJob, patienceMs: number): boolean {
  const claimed = Math.min(Atomics.exchange(job.control, NEXT, blocksOf(job)), blocksOf(job));
  const deadline = performance.now() + patienceMs;
  for (let done = Atomics.load(job.control, DONE); done < claimed; done = Atomics.load(job.control, DONE)) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(job.control, DONE, done, left);
  }
  return true;
}
