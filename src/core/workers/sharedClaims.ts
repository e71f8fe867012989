// Waiting on work two threads claim from a shared counter (dataset/read/inflateJob.ts,
// query/stretchCountJob.ts): control[0] is the next piece to claim, control[1] the claimed pieces
// finished. Each thread claims until none is left; the one that asked then waits for the other's.

/** control[CLAIM_NEXT]: the next piece to claim; control[CLAIMS_DONE]: claimed pieces finished. */
export const CLAIM_NEXT = 0;
export const CLAIMS_DONE = 1;

/**
 * Closes the claims of a job of `n` pieces and waits until every piece claimed is finished, or
 * `patienceMs` passed; true when all were.
 */
export function awaitClaimed(control: Int32Array, n: number, patienceMs: number): boolean {
  const claimed = Math.min(Atomics.exchange(control, CLAIM_NEXT, n), n);
  const deadline = performance.now() + patienceMs;
  for (let done = Atomics.load(control, CLAIMS_DONE); done < claimed; done = Atomics.load(control, CLAIMS_DONE)) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(control, CLAIMS_DONE, done, left);
  }
  return true;
}

/** Tests: waits (up to `patienceMs`) until the other thread has claimed a piece, so that it surely takes part. */
export function awaitFirstClaim(control: Int32Array, patienceMs: number): void {
  const deadline = performance.now() + patienceMs;
  while (Atomics.load(control, CLAIM_NEXT) === 0 && performance.now() < deadline) Atomics.wait(control, CLAIM_NEXT, 0, 1);
}
