// Filters a large state on two cores: a worker thread (scanWorker.ts) takes the upper half of the
// state's positions while this thread takes the lower half, over the same vectors in shared memory
// (Dataset keeps format 5's vectors in SharedArrayBuffers). The answer is the lower half's
// positions followed by the upper half's, ascending as one scan's would be.
//
// The calling thread waits for the worker with Atomics.wait, so a count stays one synchronous call
// of the engine. When the worker is not there (it failed to start, has not started yet, or died),
// a state is small, or a vector is not shared (older formats), the whole scan runs here.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers/startWorker';
import { matchRange, type ScanPredicate } from './scanKernels';
import { SCAN_WORKER_READY, type ScanJob } from './scanJob';

/** How long the calling thread waits for the worker before it scans that half itself. */
const WORKER_PATIENCE_MS = 10_000;

/** Whether a vector can be read by another thread without a copy. */
function shared(p: ScanPredicate): boolean {
  return p.data.buffer instanceof SharedArrayBuffer;
}

export class TwoCoreScan {
  private worker: Worker | undefined;
  private ready = false;
  private started = false;
  /** [id of the job the worker finished last, its count] */
  private readonly control = new Int32Array(new SharedArrayBuffer(8));
  private out = new Uint32Array(new SharedArrayBuffer(0));
  private lastJob = 0;
  /** Jobs the worker answered (tests and the bench read it). */
  jobsDone = 0;

  /**
   * `splitFrom`: positions a state needs before its scans are split (the setting scanSplitFrom:
   * handing a job to the worker and waking on its answer cost ~0.05-0.2 ms on the 2-core machine,
   * about what a one-core scan of 200,000 positions takes, so smaller states stay on one core).
   */
  constructor(private readonly splitFrom: number) {}

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
   * `between` runs on this thread's passes only: the worker's half is no longer than this one's.
   */
  match(
    predicates: readonly ScanPredicate[],
    first: number,
    end: number,
    out: Uint32Array,
    countOnly: boolean,
    between: () => void,
  ): number | null {
    if (end - first < this.splitFrom || !predicates.every(shared)) return null;
    this.start();
    const worker = this.worker;
    // Until the worker is up (its first ~0.1-0.5 s), scans run here.
    if (!this.ready || !worker) return null;
    // A multiple of 4, so both halves read whole words of one-byte vectors.
    const mid = (first + Math.floor((end - first) / 2)) & ~3;
    // A count of three filters or more lists positions too (only its last pass just counts).
    if (this.out.length < end - mid) this.out = new Uint32Array(new SharedArrayBuffer(4 * (end - mid)));
    const id = (this.lastJob = (this.lastJob % 0x7fffffff) + 1);
    const job: ScanJob = {
      id,
      // Only what the loops read: a predicate's record check (verify) stays on this thread.
      predicates: predicates.map(({ data, mask, bands, hashes }) => ({ data, mask, bands, hashes }) as ScanPredicate),
      first: mid,
      end,
      countOnly,
      control: this.control,
      out: this.out,
    };
    worker.postMessage(job);
    const lower = matchRange(predicates, first, mid, out, countOnly, between);
    const upper = this.await(id);
    if (upper < 0) {
      // The worker failed this job (or never answered): this half here, and no more jobs for it.
      this.stop();
      return lower + this.scanHere(predicates, mid, end, out, lower, countOnly);
    }
    if (!countOnly) out.set(this.out.subarray(0, upper), lower);
    this.jobsDone++;
    return lower + upper;
  }

  /** The worker's count for job `id`, or -1 when it failed or did not answer in time (then it is stopped). */
  private await(id: number): number {
    const deadline = performance.now() + WORKER_PATIENCE_MS;
    for (;;) {
      const seen = Atomics.load(this.control, 0);
      if (seen === id) return Atomics.load(this.control, 1);
      const left = deadline - performance.now();
      if (left <= 0) {
        this.stop();
        return -1;
      }
      // Woken when the worker stores a job id; an earlier job's late answer only loops again.
      Atomics.wait(this.control, 0, seen, left);
    }
  }

  /** The upper half on this thread, its positions after the lower half's `at`; returns how many. */
  private scanHere(
    predicates: readonly ScanPredicate[],
    mid: number,
    end: number,
    out: Uint32Array,
    at: number,
    countOnly: boolean,
  ): number {
    return matchRange(predicates, mid, end, out.subarray(at), countOnly);
  }

  /** Stops the worker; scans then run on one core. */
  stop(): void {
    this.ready = false;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) void worker.terminate();
  }
}
