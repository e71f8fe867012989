// Lets the background verify yield to requests. The verify runs on a thread of its own, but on a
// two-core laptop that thread competes with the request's own thread and the engine's scan worker:
// measured at 10M, 100 full records took p95 34-38 ms while a verify ran and 7-12 ms after. So a
// request holds the gate while it computes (the engine is synchronous: a request's work is one call
// on its thread), and the verify waits, between two of its steps, until no request holds it.
// The count lives in shared memory, so neither side pays a message for it.

/** The shared count of requests running; the verify's worker gets its buffer. */
export class VerifyGate {
  readonly buffer = new SharedArrayBuffer(4);
  private readonly count = new Int32Array(this.buffer);

  /** Runs `work` with the verify held back. */
  hold<T>(work: () => T): T {
    Atomics.add(this.count, 0, 1);
    try {
      return work();
    } finally {
      if (Atomics.sub(this.count, 0, 1) === 1) Atomics.notify(this.count, 0);
    }
  }
}

/** On the verify's thread: returns once no request holds the gate (waking at least every `maxWaitMs`). */
export function waitForRequests(buffer: SharedArrayBuffer, maxWaitMs = 100): void {
  const count = new Int32Array(buffer);
  for (let held = Atomics.load(count, 0); held > 0; held = Atomics.load(count, 0)) Atomics.wait(count, 0, held, maxWaitMs);
}
