// The second core's share of a filter scan (twoCoreScan.ts): it claims pieces of the state beside
// the calling thread (scanJob.ts). The vectors arrive as views of the dataset's shared memory, so
// nothing is copied; the positions of the pieces it scans go into the job's shared list.
import { parentPort } from 'node:worker_threads';
import { SCAN_WORKER_READY, scanPieces, type ScanJob } from './scanJob';
import { warmUpScans } from './scanKernels';

parentPort!.on('message', (job: ScanJob) => {
  try {
    scanPieces(job, job.out, true);
  } catch {
    // The piece's count says -1: the calling thread scans it again and finds the error itself.
  }
});

// Loaded, compiled and listening: until this arrives the main thread scans alone (a worker is
// 'online' before its modules are loaded, ~0.1 s from sources under tsx, and a job sent then waited
// that long).
warmUpScans();
parentPort!.postMessage(SCAN_WORKER_READY);
