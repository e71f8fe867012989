// The second core's share of a filter scan (twoCoreScan.ts): it claims pieces of the state beside
// the calling thread (scanJob.ts). The vectors arrive as views of the dataset's shared memory, so
// nothing is copied; the positions of the pieces it scans go into the job's shared list. Between
// scans it also decompresses record blocks of a read of many as they are fetched (dataset/inflateJob.ts),
// claimed the same way.
import { parentPort } from 'node:worker_threads';
import { inflateClaimed, type InflateJob } from '../dataset/inflateJob';
import { ZstdDecompressor } from '../dataset/zstdContext';
import { SCAN_WORKER_READY, scanPieces, type ScanJob } from './scanJob';
import { warmUpScans } from './scanKernels';

/** How long the worker waits for a claimed block to be published before leaving it to the reader. */
const PUBLISH_PATIENCE_MS = 2000;

/** Its own zstd context: a page's record blocks are decompressed here too (dataset/inflateJob.ts). */
const decompressor = new ZstdDecompressor();

parentPort!.on('message', (job: ScanJob | InflateJob) => {
  if ('kind' in job && job.kind === 'inflate') {
    // A block that fails is marked so; the reading thread decompresses it again and reports the damage.
    // The reader publishes blocks as it fetches them, always all of them (or says the rest are its own).
    inflateClaimed(job, decompressor, true, PUBLISH_PATIENCE_MS);
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
parentPort!.postMessage(SCAN_WORKER_READY);
