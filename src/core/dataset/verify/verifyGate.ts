// Lets background threads (the verify, the PID-order warm-up) yield to requests. They run on threads
// of their own, but on a two-core laptop such a thread competes with the request's own thread and
// the engine's scan worker: measured at 10M, 100 full records took p95 34-38 ms while a verify ran
// and 7-12 ms after. So a request holds the gate while it computes (the engine is synchronous: a
// request's work is one call on its thread), and a background thread waits, between two of its
// steps, until no request holds it. The verify waits longer: until requests have been quiet a while
// (VERIFY_QUIET_MS), since what follows a request's computing (its JSON, the socket, the client's
// next request) came while it ran too, and at 30M counts under steady traffic took p95 5.2-5.5 ms
// with the verify beside them against 4.1 without; but never so long that it starves
// (VERIFY_PATIENCE_MS). The count and the last request's end live in shared memory, so neither
// side pays a message for them.

/** How long requests must have been quiet before the verify takes its next step. */
export const VERIFY_QUIET_MS = 200;
/**
 * How long the verify waits for quiet at most: then it takes one step (~1 ms) anyway, once no
 * request computes. Under traffic that never pauses (a tool polling the API) it still goes on at
 * ~1% of a core, so a 10M file is verified within the hour instead of never.
 */
export const VERIFY_PATIENCE_MS = 100;

/**
 * Bytes of the shared state: the count of requests running (Int32 at 0), whether the gate is closed
 * (Int32 at 4), when the last request ended (BigInt64 at 8, ms since the epoch).
 */
const GATE_BYTES = 16;

/** The shared count of requests running and when the last ended; background workers get its buffer. */
export class VerifyGate {
  readonly buffer = new SharedArrayBuffer(GATE_BYTES);
  private readonly count = new Int32Array(this.buffer, 0, 1);
  private readonly closed = new Int32Array(this.buffer, 4, 1);
  private readonly lastEnd = new BigInt64Array(this.buffer, 8, 1);

  /**
   * Tells the background threads waiting on the gate to stop: their dataset closed. They end at their
   * next wait instead of being terminated, which better-sqlite3 13 does not survive when a thread is
   * inside one of its calls (loading its binding, say): the whole process aborts ("FATAL ERROR:
   * Error::New napi_get_last_error_info", seen once in a test run when a dataset closed just as its
   * verify's thread opened the file).
   */
  close(): void {
    Atomics.store(this.closed, 0, 1);
    Atomics.notify(this.count, 0);
  }

  /** Whether no request computes now and none has ended in the last `ms` (on the requests' own thread). */
  quietFor(ms: number): boolean {
    return Atomics.load(this.count, 0) === 0 && Date.now() - Number(Atomics.load(this.lastEnd, 0)) >= ms;
  }

  /** Runs `work` with the background threads held back. */
  hold<T>(work: () => T): T {
    Atomics.add(this.count, 0, 1);
    try {
      return work();
    } finally {
      Atomics.store(this.lastEnd, 0, BigInt(Date.now()));
      if (Atomics.sub(this.count, 0, 1) === 1) Atomics.notify(this.count, 0);
    }
  }
}

/**
 * On a background thread: returns true once no request holds the gate (waking at least every
 * `maxWaitMs`) and none has ended in the last `quietMs`, or, when requests never pause that long,
 * once none holds it after `patienceMs` of waiting; false as soon as the gate is closed (the thread
 * then ends by itself).
 */
export function waitForRequests(buffer: SharedArrayBuffer, quietMs = 0, patienceMs = Infinity, maxWaitMs = 100): boolean {
  const count = new Int32Array(buffer, 0, 1);
  const closed = new Int32Array(buffer, 4, 1);
  const lastEnd = new BigInt64Array(buffer, 8, 1);
  const giveUpAt = Date.now() + patienceMs;
  for (;;) {
    if (Atomics.load(closed, 0) !== 0) return false;
    const held = Atomics.load(count, 0);
    if (held > 0) {
      Atomics.wait(count, 0, held, maxWaitMs);
      continue;
    }
    const now = Date.now();
    const quietFor = now - Number(Atomics.load(lastEnd, 0));
    if (quietFor >= quietMs || now >= giveUpAt) return true;
    // Sleeps out the rest of the quiet time (or of the patience); a request starting meanwhile is seen on waking.
    Atomics.wait(count, 0, 0, Math.min(quietMs - quietFor, giveUpAt - now, maxWaitMs));
  }
}
