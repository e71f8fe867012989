// Reading many compressed pieces of a dataset on two cores: the record blocks of a page of scattered
// records (~100 at 10M, each ~40 µs to fetch from SQLite and ~60-100 µs of zstd on this machine) and
// the vector chunks of a field's first use in a state (19 in California at 10M, ~0.6 ms each to
// fetch and check for a 32-bit vector). The job goes to the scan worker (query/scanWorker.ts), idle
// while a query reads, and both threads claim pieces from a shared counter, as a split scan claims
// its pieces (query/scanJob.ts): each fetches a piece from its own connection to the file
// (pieceFetch.ts), checks it and decompresses it straight into its place in shared memory. So a slow
// or absent worker costs nothing but its share, and whatever the worker did not finish, or found
// damaged, the reading thread reads again itself, which reports the damage.
import type { PieceFetch, PieceSource } from './pieceFetch';
import type { ZstdDecompressor } from '../codec/zstdContext';
import { inflateChunk } from '../codec/vectorChunks';
import { awaitClaimed, awaitFirstClaim, CLAIM_NEXT, CLAIMS_DONE } from '../../workers/sharedClaims';

/** Who can take a job: the scan worker when it is running (query/twoCoreScan.ts); false: it cannot now. */
export interface BlockInflater {
  postInflate(job: InflateJob): boolean;
}

/** control[CLAIM_NEXT] and [CLAIMS_DONE] (workers/sharedClaims.ts), then a record a piece. */
const HEADER = 2;
/** A piece's record: its status, where its output starts, the room there, and the size written. */
const STATUS = 0;
const OUT_FROM = 1;
const ROOM = 2;
const SIZE = 3;
const RECORD = 4;
/** A piece's status (0 while not finished): decompressed by the reading thread or by the worker; anything else, not. */
export const BY_READER = 1;
export const BY_WORKER = 2;
const FAILED = -1;
const TOO_LARGE = -2;

/** What the worker receives (structured clone; `out` and `control` are SharedArrayBuffers, not copied). */
export interface InflateJob {
  kind: 'inflate';
  source: PieceSource;
  /** The pieces: block numbers, or chunk numbers of the source's vector. */
  keys: number[];
  out: Uint8Array;
  control: Int32Array;
}

const at = (i: number, field: number): number => HEADER + i * RECORD + field;

/** A job of reading the pieces `keys` of `source`, piece i decompressed into `out` at places[i].from, within places[i].room bytes. */
export function inflateJob(
  source: PieceSource,
  keys: readonly number[],
  out: SharedArrayBuffer,
  places: ReadonlyArray<{ from: number; room: number }>,
): InflateJob {
  const control = new Int32Array(new SharedArrayBuffer(4 * (HEADER + keys.length * RECORD)));
  places.forEach((place, i) => {
    control[at(i, OUT_FROM)] = place.from;
    control[at(i, ROOM)] = place.room;
  });
  return { kind: 'inflate', source, keys: [...keys], out: new Uint8Array(out), control };
}

/** What was done with piece i (BY_READER, BY_WORKER, or not done) and the bytes it decompressed to. */
export const statusOf = (job: InflateJob, i: number): number => Atomics.load(job.control, at(i, STATUS));
export const sizeOf = (job: InflateJob, i: number): number => job.control[at(i, SIZE)]!;

/**
 * Claims pieces until none is left, fetching each (`fetch`, this thread's own connection),
 * decompressing it into its place. A piece that fails its checks or does not decompress is FAILED,
 * one larger than its room TOO_LARGE: the reading thread reads those again itself.
 */
export function claimPieces(job: InflateJob, fetch: PieceFetch, decompressor: ZstdDecompressor, byWorker: boolean): void {
  const n = job.keys.length;
  for (;;) {
    const i = Atomics.add(job.control, CLAIM_NEXT, 1);
    if (i >= n) return;
    let status = byWorker ? BY_WORKER : BY_READER;
    try {
      const { frame, size, chunk } = fetch(job.keys[i]!);
      if (size > job.control[at(i, ROOM)]!) status = TOO_LARGE;
      else {
        const from = job.control[at(i, OUT_FROM)]!;
        if (chunk) inflateChunk(frame, job.out.subarray(from, from + size), decompressor);
        else decompressor.decompressInto(frame, job.out.subarray(from, from + size));
        job.control[at(i, SIZE)] = size;
      }
    } catch {
      status = FAILED;
    }
    Atomics.store(job.control, at(i, STATUS), status);
    Atomics.add(job.control, CLAIMS_DONE, 1);
    Atomics.notify(job.control, CLAIMS_DONE);
  }
}

/** How long the reading thread waits for pieces the worker claimed before it reads them itself. */
const WORKER_PATIENCE_MS = 2000;

/**
 * The reading thread's part of a job: posts it, claims pieces beside the worker, and waits for the
 * worker's. False when the worker cannot take a job now (nothing was read). When the worker is late,
 * `leave()` is called: it may still write into `out`, which must not be reused.
 */
export function readShared(
  inflater: BlockInflater,
  job: InflateJob,
  fetch: PieceFetch,
  decompressor: ZstdDecompressor,
  options: { workerFirst: boolean; leave: () => void },
): boolean {
  if (!inflater.postInflate(job)) return false;
  if (options.workerFirst) awaitFirstClaim(job.control, WORKER_PATIENCE_MS);
  claimPieces(job, fetch, decompressor, false);
  if (!awaitClaimed(job.control, job.keys.length, WORKER_PATIENCE_MS)) options.leave();
  return true;
}
