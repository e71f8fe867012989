// The jobs the app runs in the background (imports, exports): each gets an id, a view the renderer
// polls, an AbortController, and a promise that settles once the job has ended and its completion
// callback (the audit entry) has run. Finished jobs are kept for status queries, the oldest
// forgotten first. What a job does, and what its view holds beyond id and status, is its owner's.
import { randomBytes } from 'node:crypto';
import { AppError, isAppError } from '../../shared/errors';

export type JobStatus = 'running' | 'done' | 'failed' | 'cancelled';
export type JobOutcome = Exclude<JobStatus, 'running'>;

/** What the registry keeps in every view. */
export interface JobView {
  id: string;
  status: JobStatus;
  error?: string;
}

export interface Job<V extends JobView, D> {
  readonly view: V;
  /** What the owner keeps beside the view (an export: the engine it reads from, its elapsed time). */
  readonly data: D;
  readonly signal: AbortSignal;
  /** Settles (never rejects) once the job has ended and onEnded has run. */
  readonly settled: Promise<void>;
}

export interface JobRegistryOptions<V extends JobView, D> {
  /** Names the job in errors: 'import', 'export'. */
  noun: string;
  /** The view's error when a job fails with something other than an AppError (whose message is shown). */
  genericFailure: string;
  /** Finished jobs kept for status queries; the oldest are forgotten first. */
  keepFinished?: number;
  /**
   * Called once when a job ends, its view already final (status, error): writes the audit entry.
   * A throw is ignored (at shutdown app state may be closed: there is no one left to tell).
   */
  onEnded?: (job: Job<V, D>, outcome: JobOutcome) => void;
}

interface Entry<V extends JobView, D> extends Job<V, D> {
  controller: AbortController;
  settled: Promise<void>;
}

const DEFAULT_KEEP_FINISHED = 50;

export class JobRegistry<V extends JobView, D = undefined> {
  private readonly jobs = new Map<string, Entry<V, D>>();
  private newest: Entry<V, D> | undefined;

  constructor(private readonly options: JobRegistryOptions<V, D>) {}

  /**
   * Registers a job and starts `work` at once. `view(id)` makes its view (status 'running').
   * When `work` resolves the job is done; when it rejects, cancelled if it was aborted (or the
   * error's code is 'cancelled'), else failed, with the error's message in view.error.
   */
  start(view: (id: string) => V, data: D, work: (job: Job<V, D>) => Promise<void>): Job<V, D> {
    const id = randomBytes(8).toString('hex');
    const made = view(id);
    if (made.id !== id || made.status !== 'running') throw new Error("A new job's view has its id and status running.");
    const controller = new AbortController();
    const entry: Entry<V, D> = { view: made, data, controller, signal: controller.signal, settled: Promise.resolve() };
    this.jobs.set(id, entry);
    this.newest = entry;
    let running: Promise<void>;
    try {
      running = work(entry);
    } catch (e) {
      running = Promise.reject(e);
    }
    entry.settled = running.then(
      () => this.end(entry, 'done'),
      (e: unknown) => {
        const cancelled = entry.controller.signal.aborted || (isAppError(e) && e.code === 'cancelled');
        if (!cancelled) entry.view.error = isAppError(e) ? e.message : this.options.genericFailure;
        this.end(entry, cancelled ? 'cancelled' : 'failed');
      },
    );
    this.forgetOldJobs();
    return entry;
  }

  /** The job with this id; not_found when there is none (or it was forgotten). */
  get(id: string): Job<V, D> {
    return this.find(id);
  }

  /** The job started last, if any. */
  latest(): Job<V, D> | undefined {
    return this.newest;
  }

  /** Running jobs, those `which` accepts. */
  running(which: (job: Job<V, D>) => boolean = () => true): Array<Job<V, D>> {
    return [...this.jobs.values()].filter((j) => j.view.status === 'running' && which(j));
  }

  /** Asks a running job to stop (unless `tooLate` says it cannot be any more); returns it. */
  cancel(id: string, tooLate: (job: Job<V, D>) => boolean = () => false): Job<V, D> {
    const job = this.find(id);
    if (job.view.status === 'running' && !tooLate(job)) job.controller.abort();
    return job;
  }

  /** Resolves once no running job that `which` accepts is left (each has ended and been audited). */
  async idle(which: (job: Job<V, D>) => boolean = () => true): Promise<void> {
    await Promise.all(this.running(which).map((j) => j.settled));
  }

  /** Cancels every running job and waits until each has cleaned up and been audited (shutdown). */
  async cancelAll(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.view.status === 'running');
    for (const job of running) job.controller.abort();
    await Promise.all(running.map((j) => j.settled));
  }

  private find(id: string): Entry<V, D> {
    const job = this.jobs.get(id);
    if (!job) throw new AppError('not_found', `No ${this.options.noun} job with id ${JSON.stringify(id.slice(0, 40))}.`, 'id');
    return job;
  }

  private end(job: Entry<V, D>, outcome: JobOutcome): void {
    job.view.status = outcome;
    try {
      this.options.onEnded?.(job, outcome);
    } catch {
      // App state already closed (shutdown): there is no one left to tell.
    }
  }

  private forgetOldJobs(): void {
    const keep = this.options.keepFinished ?? DEFAULT_KEEP_FINISHED;
    const finished = [...this.jobs.values()].filter((j) => j.view.status !== 'running');
    for (const job of finished.slice(0, Math.max(0, finished.length - keep))) this.jobs.delete(job.view.id);
  }
}
