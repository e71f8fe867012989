// Exports the app starts run here in the background (jobs/jobRegistry.ts): one job per file, with
// progress for the renderer, cancellable, and an audit entry when it ends, whatever the outcome.
// The writing itself is exportAudience's (atomic: a failed or cancelled job leaves no file).
import type { DatasetRef, ExportJob, Filter } from '../../shared/contract';
import type { ListControlsInput } from '../../shared/listControls';
import type { ExportOutput } from '../../shared/exportFields';
import { AppError } from '../../shared/errors';
import type { AuditLog } from '../appState/auditLog';
import { PackedPids, type ExportHistory } from '../lists/exportHistory';
import { JobRegistry, type Job as RegisteredJob } from '../jobs/jobRegistry';
import type { Audience, AudienceEngine, RecordStream } from '../audience/contract/engine';
import { exportRecords, type ExportFormat, type ExportHeader } from './exportAudience';

export interface StartExport {
  /** The validated audience the records come from; several (one a state) write one file, one after another. */
  audience: Audience | Audience[];
  /** The audience as the user wrote it, for the audit log. */
  definition: { state: string; states?: string[]; filters: Filter[]; output?: ExportOutput } & ListControlsInput;
  format: ExportFormat;
  /** A CSV's header rows (exportAudience.ts): field names unless asked. */
  header?: ExportHeader;
  path: string;
  /** Who asked: 'UI' or an API key's name. */
  actor: string;
}

export interface ExportJobsOptions {
  /** Records per write; small values exist for tests that cancel mid-way. */
  batchSize?: number;
  /** Finished jobs kept for status queries; the oldest are forgotten first. */
  keepFinished?: number;
  /** The dataset an engine reads, for the audit entry (the export's own, even after a switch). */
  datasetOf?: (engine: AudienceEngine) => DatasetRef | null;
}

/** What an export job keeps beside its view. */
interface ExportWork {
  request: StartExport;
  /** The dataset's engine the job reads from; a dataset switch closes it only once the job ended. */
  engine: AudienceEngine;
  elapsedMs: number;
  /** Whom the job wrote, remembered when it is done (`exclude: ["export:<audit id>"]`), then let go. */
  pids: PackedPids | null;
}

type Job = RegisteredJob<ExportJob, ExportWork>;

const GENERIC_FAILURE = 'The export failed unexpectedly; try again.';

export class ExportJobs {
  private readonly jobs: JobRegistry<ExportJob, ExportWork>;
  /** Files whose records are being looked up before their job starts: a second export to one waits its turn. */
  private readonly opening = new Set<string>();
  private readonly exported = new Set<string>();

  constructor(
    private readonly engine: () => AudienceEngine,
    audit: AuditLog,
    history: ExportHistory,
    private readonly options: ExportJobsOptions = {},
  ) {
    this.jobs = new JobRegistry<ExportJob, ExportWork>({
      noun: 'export',
      genericFailure: GENERIC_FAILURE,
      keepFinished: options.keepFinished,
      onEnded: ({ view, data }, outcome) => {
        const entry = audit.record({
          actor: data.request.actor,
          action: 'export',
          audience: data.request.definition,
          // A job that did not finish wrote no file: the log says how far it got, not the audience's size.
          records: outcome === 'done' ? view.total : view.written,
          file: view.path,
          outcome,
          dataset: options.datasetOf?.(data.engine),
        });
        if (outcome === 'done' && data.pids) history.remember(entry.id, data.pids);
        data.pids = null;
      },
    });
  }

  /** Starts a job once its records are found (so its total is known) and returns without waiting for it. */
  async start(request: StartExport): Promise<ExportJob> {
    if (this.opening.has(request.path) || this.jobs.running((j) => j.view.path === request.path).length > 0)
      throw new AppError('invalid_request', 'An export to this file is already running.', 'fileName');
    const engine = this.engine();
    this.opening.add(request.path);
    let stream: RecordStream;
    try {
      const audiences = Array.isArray(request.audience) ? request.audience : [request.audience];
      const streams: RecordStream[] = [];
      for (const a of audiences) streams.push(await engine.records(a));
      stream = streams.length === 1 ? streams[0]! : concatenated(streams);
    } finally {
      this.opening.delete(request.path);
    }
    const view = (id: string): ExportJob => ({
      id,
      status: 'running',
      format: request.format,
      path: request.path,
      written: 0,
      total: stream.total,
      recordsPerSecond: 0,
      secondsLeft: null,
    });
    const pids = new PackedPids(stream.total);
    const job = this.jobs.start(view, { request, engine, elapsedMs: 0, pids }, (j) => this.run(collectingPids(stream, pids), j));
    return this.snapshot(job);
  }

  status(id: string): ExportJob {
    return this.snapshot(this.jobs.get(id));
  }

  /** Asks a running job to stop; a job that already ended is returned as it is. */
  cancel(id: string): ExportJob {
    return this.snapshot(this.jobs.cancel(id));
  }

  /** Resolves when the job has ended and its audit entry is written. */
  async settled(id: string): Promise<ExportJob> {
    const job = this.jobs.get(id);
    await job.settled;
    return this.snapshot(job);
  }

  /** Cancels every running job and waits for them to clean up (on shutdown). */
  cancelAll(): Promise<void> {
    return this.jobs.cancelAll();
  }

  /** Resolves once no running job reads from this engine (a dataset being replaced waits for it). */
  idle(engine: AudienceEngine): Promise<void> {
    return this.jobs.idle((j) => j.data.engine === engine);
  }

  /** True for a file a job of this process wrote completely (e.g. to reveal it in its folder). */
  wasExported(path: string): boolean {
    return this.exported.has(path);
  }

  private async run(stream: RecordStream, job: Job): Promise<void> {
    const { view, data } = job;
    await exportRecords(stream, {
      format: view.format,
      header: data.request.header,
      output: data.request.definition.output,
      outPath: view.path,
      signal: job.signal,
      batchSize: this.options.batchSize,
      onProgress: (p) => {
        view.written = p.written;
        view.total = p.total;
        data.elapsedMs = p.elapsedMs;
      },
    });
    this.exported.add(view.path);
  }

  private snapshot({ view, data }: Job): ExportJob {
    const seconds = data.elapsedMs / 1000;
    const rate = seconds > 0 ? view.written / seconds : 0;
    let secondsLeft: number | null = null;
    if (view.status === 'done') secondsLeft = 0;
    else if (view.status === 'running' && rate > 0) secondsLeft = Math.ceil((view.total - view.written) / rate);
    return { ...view, recordsPerSecond: Math.round(rate), secondsLeft };
  }
}

/** Several streams read one after another as one (a several-state export). */
function concatenated(streams: RecordStream[]): RecordStream {
  return {
    total: streams.reduce((a, s) => a + s.total, 0),
    async *batches(batchSize: number): AsyncIterable<string[]> {
      for (const s of streams) yield* s.batches(batchSize);
    },
  };
}

/** The stream, noting each record's PID as its batch goes by (the records themselves are not kept). */
function collectingPids(stream: RecordStream, pids: PackedPids): RecordStream {
  return {
    total: stream.total,
    async *batches(batchSize: number): AsyncIterable<string[]> {
      for await (const batch of stream.batches(batchSize)) {
        for (const text of batch) pids.addRecord(text);
        yield batch;
      }
    },
  };
}
