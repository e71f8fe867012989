// A many-field count shared out with the scan worker (fieldCountJob.ts): both threads claim units of
// fields until none is left, the calling thread waits for the worker's last unit with Atomics.wait (so
// a count stays one synchronous call of the engine), and whatever unit the worker failed or did not
// finish in time is tallied again here, the worker stopped, as a split scan does (twoCoreScan.ts).
// The tallies are exactly one thread's: a unit is tallied whole by one thread or the other.
import type { Vector } from '../dataset/codec/columnVector';
import { BY_CALLER, BY_WORKER, claimFields, DONE, fieldCountJob, fieldTallies, NEXT, STATUS_AT, tallyUnitAgain } from './fieldCountJob';
import type { TwoCoreScan } from './twoCoreScan';

/** How long the calling thread waits for a unit the worker claimed before it tallies the unit itself. */
const WORKER_PATIENCE_MS = 10_000;

/** Whether an array (or no list at all) can be read by the worker without a copy. */
export function isShared(data: Vector | null): boolean {
  return data === null || data.buffer instanceof SharedArrayBuffer;
}

/** Waits until every claimed unit is done; a worker that takes longer than its patience is stopped. */
function awaitUnits(control: Int32Array, units: number, twoCores: TwoCoreScan): void {
  const claimed = Math.min(Atomics.exchange(control, NEXT, units), units);
  const deadline = performance.now() + WORKER_PATIENCE_MS;
  for (let done = Atomics.load(control, DONE); done < claimed; done = Atomics.load(control, DONE)) {
    const left = deadline - performance.now();
    if (left <= 0) {
      twoCores.stop();
      return;
    }
    Atomics.wait(control, DONE, done, left);
  }
}

/** Tests: waits for the worker to claim a unit before this thread claims any, so the worker surely tallies one. */
function awaitWorkerClaim(control: Int32Array): void {
  const deadline = performance.now() + WORKER_PATIENCE_MS;
  while (Atomics.load(control, NEXT) === 0 && performance.now() < deadline) Atomics.wait(control, NEXT, 0, 1);
}

/**
 * Each vector's counts by its number over the positions (the list's, or the whole range's), in the
 * order given, the work shared with the worker. The vectors and the list must be in shared memory (isShared).
 */
export function splitTallies(
  twoCores: TwoCoreScan,
  vectors: Array<Uint8Array | Uint16Array>,
  positions: { range: { first: number; count: number }; list: Uint32Array | null },
): Uint32Array[] {
  const { range, list } = positions;
  const job = fieldCountJob(vectors, list, range.first, range.first + range.count, true);
  const posted = twoCores.postFieldCounts(job);
  if (posted && twoCores.workerFirst) awaitWorkerClaim(job.control);
  try {
    claimFields(job, false);
  } finally {
    // Also when this thread stopped on an error: no unit may be left running into the shared tallies.
    if (posted) awaitUnits(job.control, job.units.length, twoCores);
  }
  let workerDid = false;
  const tallies = fieldTallies(job, (u) => {
    const status = job.control[STATUS_AT + u];
    workerDid ||= status === BY_WORKER;
    if (status === BY_CALLER || status === BY_WORKER) return null;
    // Failed by the worker, or not finished in time: its place may still be written to, so a fresh tally.
    twoCores.stop();
    return tallyUnitAgain(job, u);
  });
  if (workerDid) twoCores.jobsDone++;
  return tallies;
}
