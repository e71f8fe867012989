// Filters a large state on two cores: this thread and a worker (scanWorker.ts) claim pieces of the
// state's positions from a shared counter until none is left (scanJob.ts), over the same vectors in
// shared memory (Dataset keeps its chunked vectors in SharedArrayBuffers). The answer is the pieces'
// positions in order, ascending as one scan's would be.
//
// The calling thread waits for the worker with Atomics.wait, so a count stays one synchronous call
// of the engine. When the worker is not there (it failed to start, has not started yet, or died),
// a state is small, or a vector is not shared (older formats), the whole scan runs here.
import type { Worker } from 'node:worker_threads';
import type { InflateJob } from '../dataset/read/inflateJob';
import { startWorker } from '../workers/startWorker';
import { bitBytes } from './bitKernels';
import type { FieldCountJob } from './fieldCountJob';
import type { StretchCountJob } from './stretchCountJob';
import { matchRange, type ScanPredicate } from './scanKernels';
import {
  CONTROL_SLOTS,
  BY_WORKER_AT,
  COUNT_AT,
  DONE,
  NEXT,
  PIECES,
  markPieceBounds,
  pieceBounds,
  SCAN_WORKER_READY,
  SCAN_WORKER_STOP,
  scanPieces,
  type ScanJob,
} from './scanJob';

/** How long the calling thread waits for a piece the worker claimed before it scans the piece itself. */
const WORKER_PATIENCE_MS = 10_000;

/** Whether a vector can be read by another thread without a copy. */
function shared(p: ScanPredicate): boolean {
  return p.data.buffer instanceof SharedArrayBuffer;
}

export class TwoCoreScan {
  private worker: Worker | undefined;
  private ready = false;
  private started = false;
  private out = new Uint32Array(new SharedArrayBuffer(0));
  /** Scans the worker took part in (tests read it). */
  jobsDone = 0;
  /** Tests: the calling thread waits for the worker to claim a piece before it claims any. */
  workerFirst = false;

  /**
   * `splitFrom`: positions a state needs before its scans are split (the setting scanSplitFrom:
   * handing a job to the worker and waking on its answer cost ~0.05-0.2 ms on the 2-core machine,
   * about what a one-core scan of 200,000 positions takes, so smaller states stay on one core).
   */
  constructor(readonly splitFrom: number) {}

  /**
   * Starts the worker, once: the engine asks when a state of its dataset is large enough to split
   * (most datasets of tests are not), and so does the first scan that would be split.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const worker = startWorker('scanWorker', import.meta.url);
    if (!worker) return;
    this.worker = worker;
    // A worker must not keep a command's process alive; it is only ever waited on synchronously.
    worker.unref();
    worker.once('message', (message) => (this.ready = message === SCAN_WORKER_READY && this.worker === worker));
    worker.once('error', () => this.stop());
    worker.once('exit', () => this.stop());
  }

  /** Whether the worker is up and answering. */
  get running(): boolean {
    return this.ready && this.worker !== undefined;
  }

  /** Starts the worker if it is not yet; resolves once it is up (true) or cannot be (false). */
  whenRunning(): Promise<boolean> {
    this.start();
    const worker = this.worker;
    if (this.ready || !worker) return Promise.resolve(this.running);
    // Held until then: an unreferenced worker lets a process with nothing else to wait on exit first.
    worker.ref();
    return new Promise((resolve) => {
      const settle = (up: boolean) => {
        worker.unref();
        resolve(up);
      };
      worker.once('message', () => settle(this.running));
      worker.once('exit', () => settle(false));
    });
  }

  /**
   * matchRange over [first, end) on both cores, or null when this scan runs on one (see above).
   * `between` runs after each piece this thread scans.
   */
  match(
    predicates: readonly ScanPredicate[],
    first: number,
    end: number,
    out: Uint32Array,
    countOnly: boolean,
    between: () => void,
  ): number | null {
    const worker = this.splitWorker(predicates, first, end);
    if (!worker) return null;
    // A count of three filters or more lists positions too (only its last pass just counts).
    if (this.out.length < end - first) this.out = new Uint32Array(new SharedArrayBuffer(4 * (end - first)));
    const job = this.jobOf(predicates, first, pieceBounds(first, end), countOnly);
    this.runBeside(worker, job, out, between);
    return this.gather(job, out);
  }

  /**
   * markRange over [first, end) on both cores: a bit a person from `first`, in shared memory, and how
   * many are set; null when this scan runs on one (see above) or a piece failed. A failed piece is not
   * marked again into these bytes, since a late worker may still write them: the caller marks afresh.
   */
  mark(predicates: readonly ScanPredicate[], first: number, end: number, between: () => void): { marks: Uint8Array; n: number } | null {
    const worker = this.splitWorker(predicates, first, end);
    if (!worker) return null;
    // Whole words, so the marks can also serve as a filter's bits (filterBits.ts).
    const marks = new Uint8Array(new SharedArrayBuffer(bitBytes(end - first)));
    const job = { ...this.jobOf(predicates, first, markPieceBounds(first, end), true), marks };
    this.runBeside(worker, job, this.out, between);
    let n = 0;
    let workerDid = false;
    for (let k = 0; k < PIECES; k++) {
      const stored = job.control[COUNT_AT + k]!;
      if (stored <= 0) {
        this.stop();
        return null;
      }
      n += stored - 1;
      workerDid ||= job.control[BY_WORKER_AT + k] === 1;
    }
    if (workerDid) this.jobsDone++;
    return { marks, n };
  }

  /** The worker, when a scan of [first, end) with these predicates is split; null when it runs here alone. */
  private splitWorker(predicates: readonly ScanPredicate[], first: number, end: number): Worker | null {
    if (end - first < this.splitFrom || !predicates.every(shared)) return null;
    this.start();
    // Until the worker is up (its first ~0.1-0.5 s), scans run here.
    return this.ready && this.worker ? this.worker : null;
  }

  private jobOf(predicates: readonly ScanPredicate[], first: number, bounds: number[], countOnly: boolean): ScanJob {
    return {
      // Only what the loops read: a predicate's record check (verify) stays on this thread.
      predicates: predicates.map(({ data, mask, bands, hashes, bits }) => ({ data, mask, bands, hashes, bits }) as ScanPredicate),
      first,
      bounds,
      countOnly,
      control: new Int32Array(new SharedArrayBuffer(4 * CONTROL_SLOTS)),
      out: this.out,
    };
  }

  /** Hands the job to the worker and claims pieces here beside it until none is left, then waits for the worker's. */
  private runBeside(worker: Worker, job: ScanJob, out: Uint32Array, between: () => void): void {
    worker.postMessage(job);
    if (this.workerFirst) this.awaitWorkerClaim(job.control);
    try {
      scanPieces(job, out, false, between);
    } finally {
      // Also when this thread stopped early (a budget, an error): no piece may be left running
      // into the shared list or marks when the next scan starts.
      this.awaitPieces(job.control);
    }
  }

  /** Waits until every claimed piece is done; a worker that takes longer than its patience is stopped. */
  private awaitPieces(control: Int32Array): void {
    const claimed = Math.min(Atomics.exchange(control, NEXT, PIECES), PIECES);
    const deadline = performance.now() + WORKER_PATIENCE_MS;
    for (let done = Atomics.load(control, DONE); done < claimed; done = Atomics.load(control, DONE)) {
      const left = deadline - performance.now();
      if (left <= 0) {
        // Its pieces count as failed (below); its list may still be written to, so it is not reused.
        this.stop();
        this.out = new Uint32Array(new SharedArrayBuffer(0));
        return;
      }
      Atomics.wait(control, DONE, done, left);
    }
  }

  /** Tests: makes this thread wait for the worker's first piece, so the worker surely scans one. */
  private awaitWorkerClaim(control: Int32Array): void {
    const deadline = performance.now() + WORKER_PATIENCE_MS;
    while (Atomics.load(control, DONE) === 0 && Atomics.load(control, NEXT) === 0 && performance.now() < deadline)
      Atomics.wait(control, NEXT, 0, 1);
  }

  /**
   * The pieces' positions in order into `out`, and their total. A piece this thread scanned is in
   * `out` at its offset already and moves down; the worker's come from the shared list. A piece
   * the worker failed (or never finished) is scanned again here, and the worker is stopped.
   */
  private gather(job: ScanJob, out: Uint32Array): number {
    const { control, bounds, first } = job;
    let total = 0;
    let workerDid = false;
    for (let k = 0; k < PIECES; k++) {
      const from = bounds[k]! - first;
      const stored = control[COUNT_AT + k]!;
      let n = stored - 1;
      const byWorker = control[BY_WORKER_AT + k] === 1;
      if (stored <= 0) {
        // Failed, or claimed by a worker that did not finish it in time.
        this.stop();
        n = matchRange(job.predicates, bounds[k]!, bounds[k + 1]!, out.subarray(from), job.countOnly);
        if (!job.countOnly) out.copyWithin(total, from, from + n);
      } else if (!job.countOnly) {
        if (byWorker) out.set(job.out.subarray(from, from + n), total);
        else out.copyWithin(total, from, from + n);
      }
      workerDid ||= byWorker && stored > 0;
      total += n;
    }
    if (workerDid) this.jobsDone++;
    return total;
  }

  /**
   * Hands a shared read (a page's record blocks, a first use's vector chunks; dataset/read/inflateJob.ts)
   * to the worker, which claims pieces beside the reading thread; false when it is not up, and the
   * reading thread reads them all.
   */
  postInflate(job: InflateJob): boolean {
    if (!this.ready || !this.worker) return false;
    this.worker.postMessage(job);
    return true;
  }

  /** Hands a count of stretches of a stored PID order (stretchCountJob.ts) to the worker, as postInflate does a read. */
  postStretchCounts(job: StretchCountJob): boolean {
    if (!this.ready || !this.worker) return false;
    this.worker.postMessage(job);
    return true;
  }

  /** Hands a many-field count (fieldCountJob.ts) to the worker, as postInflate does a read. */
  postFieldCounts(job: FieldCountJob): boolean {
    if (!this.ready || !this.worker) return false;
    this.worker.postMessage(job);
    return true;
  }

  /**
   * Stops the worker; scans then run on one core. It is asked to end, not terminated (scanJob.ts:
   * SCAN_WORKER_STOP): one that overran its patience ends when its call returns, and meanwhile only
   * writes into a job nobody reads any more.
   */
  stop(): void {
    this.ready = false;
    const worker = this.worker;
    this.worker = undefined;
    worker?.postMessage(SCAN_WORKER_STOP);
  }
}
