// Exports the UI starts run here in the background: one job per file, polled by the renderer for
// progress (records/s, seconds left), cancellable, and each one written to the audit log when it
// ends, whether done, failed or cancelled. The writing itself is exportAudience's (atomic: a failed
// or cancelled job leaves no file).
import { randomBytes } from 'node:crypto';
import type { ExportJob, Filter } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import type { AuditLog, AuditOutcome } from '../appState/auditLog';
import type { Audience, AudienceEngine, RecordStream } from '../audience/engine';
import { exportRecords, type ExportFormat } from './exportAudience';

export interface StartExport {
  /** The validated audience the records come from. */
  audience: Audience;
  /** The audience as the user wrote it, for the audit log. */
  definition: { state: string; filters: Filter[] };
  format: ExportFormat;
  path: string;
  /** Who asked: 'UI' or an API key's name. */
  actor: string;
}

export interface ExportJobsOptions {
  /** Records per write; small values exist for tests that cancel mid-way. */
  batchSize?: number;
  /** Finished jobs kept for status queries; the oldest are forgotten first. */
  keepFinished?: number;
}

interface Job {
  view: ExportJob;
  /** The dataset's engine the job reads from; a dataset switch closes it only once the job ended. */
  engine: AudienceEngine;
  elapsedMs: number;
  controller: AbortController;
  settled: Promise<void>;
}

const GENERIC_FAILURE = 'The export failed unexpectedly; try again.';

export class ExportJobs {
  private readonly jobs = new Map<string, Job>();
  private readonly exported = new Set<string>();

  constructor(
    private readonly engine: () => AudienceEngine,
    private readonly audit: AuditLog,
    private readonly options: ExportJobsOptions = {},
  ) {}

  /** Starts a job once its records are found (so its total is known) and returns without waiting for it. */
  async start(request: StartExport): Promise<ExportJob> {
    for (const job of this.jobs.values())
      if (job.view.status === 'running' && job.view.path === request.path)
        throw new AppError('invalid_request', 'An export to this file is already running.', 'fileName');
    const engine = this.engine();
    const id = randomBytes(8).toString('hex');
    const view: ExportJob = {
      id,
      status: 'running',
      format: request.format,
      path: request.path,
      written: 0,
      total: 0,
      recordsPerSecond: 0,
      secondsLeft: null,
    };
    const controller = new AbortController();
    const job: Job = { view, engine, elapsedMs: 0, controller, settled: Promise.resolve() };
    // Registered before the records are looked up, so a second export to the same file is refused meanwhile.
    this.jobs.set(id, job);
    let stream: RecordStream;
    try {
      stream = await engine.records(request.audience);
    } catch (e) {
      this.jobs.delete(id);
      throw e;
    }
    view.total = stream.total;
    job.settled = this.run(stream, job, request);
    this.forgetOldJobs();
    return this.snapshot(job);
  }

  status(id: string): ExportJob {
    return this.snapshot(this.find(id));
  }

  /** Asks a running job to stop; a job that already ended is returned as it is. */
  cancel(id: string): ExportJob {
    const job = this.find(id);
    if (job.view.status === 'running') job.controller.abort();
    return this.snapshot(job);
  }

  /** Resolves when the job has ended and its audit entry is written. */
  async settled(id: string): Promise<ExportJob> {
    const job = this.find(id);
    await job.settled;
    return this.snapshot(job);
  }

  /** Cancels every running job and waits for them to clean up (on shutdown). */
  async cancelAll(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.view.status === 'running');
    for (const job of running) job.controller.abort();
    await Promise.all(running.map((j) => j.settled));
  }

  /** Resolves once no running job reads from this engine (a dataset being replaced waits for it). */
  async idle(engine: AudienceEngine): Promise<void> {
    const using = [...this.jobs.values()].filter((j) => j.view.status === 'running' && j.engine === engine);
    await Promise.all(using.map((j) => j.settled));
  }

  /** True for a file a job of this process wrote completely (e.g. to reveal it in its folder). */
  wasExported(path: string): boolean {
    return this.exported.has(path);
  }

  private async run(stream: RecordStream, job: Job, request: StartExport): Promise<void> {
    const { view } = job;
    let outcome: AuditOutcome;
    try {
      await exportRecords(stream, {
        format: request.format,
        outPath: request.path,
        signal: job.controller.signal,
        batchSize: this.options.batchSize,
        onProgress: (p) => {
          view.written = p.written;
          view.total = p.total;
          job.elapsedMs = p.elapsedMs;
        },
      });
      outcome = 'done';
      this.exported.add(request.path);
    } catch (e) {
      // exportAudience stops with an error at the first batch after an abort: that is a cancel.
      outcome = job.controller.signal.aborted ? 'cancelled' : 'failed';
      if (outcome === 'failed') view.error = isAppError(e) ? e.message : GENERIC_FAILURE;
    }
    view.status = outcome;
    try {
      this.audit.record({
        actor: request.actor,
        action: 'export',
        audience: request.definition,
        records: view.total,
        file: request.path,
        outcome,
      });
    } catch {
      // App state already closed (shutdown): there is no one left to tell.
    }
  }

  private find(id: string): Job {
    const job = this.jobs.get(id);
    if (!job) throw new AppError('not_found', `No export job with id ${JSON.stringify(id.slice(0, 40))}.`, 'id');
    return job;
  }

  private snapshot(job: Job): ExportJob {
    const { view } = job;
    const seconds = job.elapsedMs / 1000;
    const rate = seconds > 0 ? view.written / seconds : 0;
    let secondsLeft: number | null = null;
    if (view.status === 'done') secondsLeft = 0;
    else if (view.status === 'running' && rate > 0) secondsLeft = Math.ceil((view.total - view.written) / rate);
    return { ...view, recordsPerSecond: Math.round(rate), secondsLeft };
  }

  private forgetOldJobs(): void {
    const keep = this.options.keepFinished ?? 50;
    const finished = [...this.jobs.values()].filter((j) => j.view.status !== 'running');
    for (const job of finished.slice(0, Math.max(0, finished.length - keep))) this.jobs.delete(job.view.id);
  }
}
