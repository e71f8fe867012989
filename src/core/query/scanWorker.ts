// The second core's share of a filter scan (twoCoreScan.ts): it claims pieces of the state beside
// the calling thread (scanJob.ts). The vectors arrive as views of the dataset's shared memory, so
// nothing is copied; the positions of the pieces it scans go into the job's shared list. Between
// scans it also reads record blocks of a page and vector chunks of a field's first use
// (dataset/read/inflateJob.ts), claimed the same way, through a connection of its own to the file,
// and counts an audience's matches in chunks of the stored PID order for a page at depth
// (stretchCountJob.ts).
import { parentPort } from 'node:worker_threads';
import { claimPieces, type InflateJob } from '../dataset/read/inflateJob';
import { WorkerSources, type PieceFetch } from '../dataset/read/pieceFetch';
import { ZstdDecompressor } from '../dataset/codec/zstdContext';
import { inflateChunk } from '../dataset/codec/vectorChunks';
import { claimFields, type FieldCountJob } from './fieldCountJob';
import { SCAN_WORKER_READY, SCAN_WORKER_STOP, scanPieces, type ScanJob } from './scanJob';
import { claimStretchChunks, keptSlice, warmUpStretchCounts, type StretchCountJob } from './stretchCountJob';
import { warmUpMarks } from './markKernels';
import { warmUpScans } from './scanKernels';
import { warmUpUnpacking } from '../dataset/codec/packedChunks';

/** Its own zstd context and connections to the files it reads pieces of. */
const decompressor = new ZstdDecompressor();
const sources = new WorkerSources();
/** Where this thread decodes a chunk of the stored PID order, kept from one to the next. */
let orderChunk = new Uint32Array(0);

/** Chunk c of a stored order, fetched, checked and decoded into orderChunk: a view valid until the next call. */
function decodeOrderChunk(fetch: PieceFetch, c: number): Uint32Array {
  const { frame, size } = fetch(c);
  if (orderChunk.byteLength < size) orderChunk = new Uint32Array(size / 4);
  const values = orderChunk.subarray(0, size / 4);
  inflateChunk(frame, new Uint8Array(values.buffer, 0, size), decompressor);
  return values;
}

parentPort!.on('message', (job: ScanJob | InflateJob | FieldCountJob | StretchCountJob | typeof SCAN_WORKER_STOP) => {
  if (job === SCAN_WORKER_STOP) {
    // Between two calls into better-sqlite3, so the thread can end (twoCoreScan.ts: stop).
    sources.close();
    process.exit(0);
  }
  if ('kind' in job && job.kind === 'fieldCounts') {
    // A unit of fields that fails is marked so; the calling thread tallies it again itself.
    try {
      claimFields(job, true);
    } catch {
      // Marked failed in claimFields.
    }
    return;
  }
  if ('kind' in job && job.kind === 'stretchCounts') {
    // A chunk that fails is marked so and counted again by the calling thread, which reports damage.
    if (job.kept) claimStretchChunks(job, (c) => keptSlice(job, c), true);
    else {
      const fetch = job.source && sources.fetchFor(job.source);
      if (fetch) claimStretchChunks(job, (c) => decodeOrderChunk(fetch, c), true);
    }
    return;
  }
  if ('kind' in job && job.kind === 'inflate') {
    // A piece that fails is marked so; the reading thread reads it again and reports the damage. A
    // file the worker cannot read as the reader's, it leaves alone: the reader claims every piece.
    const fetch = sources.fetchFor(job.source);
    if (fetch) claimPieces(job, fetch, decompressor, true);
    return;
  }
  try {
    scanPieces(job as ScanJob, (job as ScanJob).out, true);
  } catch {
    // The piece's count says -1: the calling thread scans it again and finds the error itself.
  }
});

// Loaded, compiled and listening: until this arrives the main thread scans alone (a worker is
// 'online' before its modules are loaded, ~0.1 s from sources under tsx, and a job sent then waited
// that long).
warmUpScans();
warmUpMarks();
warmUpStretchCounts();
warmUpUnpacking();
parentPort!.postMessage(SCAN_WORKER_READY);
