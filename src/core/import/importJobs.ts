// The imports the desktop app (and browser mode) starts: only files the user picked may be read
// (a page cannot make the app read other files), one import at a time, each into a new file in
// `<home>/datasets/` (never over the dataset in use). A finished import asks first (phase
// 'confirm': the current dataset beside the new one's counts) and switches only when the user says
// so; either way the new dataset joins the dataset history, which keeps the previous ones (README
// "Nothing lost"); every import is an audit entry. The reading and writing are
// importFiles'; the job bookkeeping is jobs/jobRegistry.ts'. docs/import.md, "From the app".
import { PickedFiles } from '../fs/pickedFiles';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { DatasetRef, ImportDelimiter, ImportFilePlan, ImportJob, ImportPlan } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import { FIELDS } from '../../shared/fields';
import { homeLayout } from '../appState/homeLayout';
import type { AuditLog } from '../appState/auditLog';
import { fileStamp } from '../fs/fileStamp';
import { makePrivateDir } from '../fs/privateFile';
import { JobRegistry, type Job } from '../jobs/jobRegistry';
import { defaultRejectsPath, importFiles } from './importFiles';
import { readHeader } from './source/sourceFile';
import { checkColumnMap, mapHeader, previewColumns } from './source/rowRules';
import type { ImportProgress, ImportSummary } from './types';

export interface ImportJobsDeps {
  homeDir: string;
  audit: AuditLog;
  /** The dataset in use now, or null. */
  currentDataset(): string | null;
  /** Makes the new dataset current; resolves with the previous one's path once it is closed. */
  switchTo(path: string): Promise<string | null>;
  /** Adds a finished dataset to the history (not active yet). */
  noteDataset(path: string): DatasetRef;
  /** The dataset in use, as the confirm step shows it. */
  currentRef(): DatasetRef | null;
  /** Deletes previous datasets beyond the history's size (after the user kept the current one). */
  prune(): void;
}

export interface StartImport {
  files: string[];
  delimiter?: ImportDelimiter;
  /** Columns the user mapped onto record fields (or skipped): vendor header to field name, '' to skip. */
  columns?: Readonly<Record<string, string>>;
  /** Who asked, for the audit log: 'UI'. */
  actor: string;
}

/** What a job keeps beside its view. */
interface ImportRunState {
  out: string;
  actor: string;
  phaseStarted: number;
  summary: ImportSummary | null;
  /** Resolves the confirm step: true to switch, false to keep the current dataset. */
  decide: ((switchTo: boolean) => void) | null;
}

type ImportJobEntry = Job<ImportJob, ImportRunState>;

const GENERIC_FAILURE = 'The import failed unexpectedly; the dataset in use was not changed.';

/** dataset-20261123-101500-1a2b3c.sqlite: sorts by time, never the name of an existing file. */
function newDatasetName(now = new Date()): string {
  return `dataset-${fileStamp(now)}-${randomBytes(3).toString('hex')}.sqlite`;
}

export class ImportJobs {
  private readonly picked = new PickedFiles('"Choose files"; only chosen files can be imported.', 'files');
  private readonly rejectFiles = new Set<string>();
  private readonly jobs = new JobRegistry<ImportJob, ImportRunState>({
    noun: 'import',
    genericFailure: GENERIC_FAILURE,
    onEnded: (job, outcome) =>
      this.deps.audit.record({
        actor: job.data.actor,
        action: 'import',
        audience: { state: '', filters: [] },
        records: job.data.summary?.records ?? 0,
        file: outcome === 'done' ? job.data.out : job.view.files.map((f) => basename(f)).join(', '),
        outcome,
      }),
  });

  constructor(private readonly deps: ImportJobsDeps) {}

  /**
   * Files the user chose (dialog or inbox); only these may be inspected or imported, and only as
   * regular files reached without a link (importFiles' followLinks is left unset).
   */
  allow(paths: readonly string[]): string[] {
    return this.picked.allow(paths);
  }

  /** Each file recognised and its header mapped, without reading its rows or writing anything. */
  plan(files: readonly string[], delimiter?: ImportDelimiter, columns?: Readonly<Record<string, string>>): ImportPlan {
    checkColumnMap(columns);
    const plans = this.checkPicked(files).map((path) => planFile(path, delimiter, columns));
    return { files: plans, ready: plans.every((f) => f.error === null) };
  }

  /** Starts the import in the background and returns at once; one import runs at a time. */
  start(request: StartImport): ImportJob {
    if (this.jobs.running().length > 0) throw new AppError('invalid_request', 'An import is already running; wait for it or cancel it.');
    const files = this.checkPicked(request.files);
    checkColumnMap(request.columns);
    const dir = homeLayout(this.deps.homeDir).datasets;
    makePrivateDir(dir);
    const state: ImportRunState = {
      out: join(dir, newDatasetName()),
      actor: request.actor,
      phaseStarted: performance.now(),
      summary: null,
      decide: null,
    };
    const job = this.jobs.start(
      (id) => ({
        id,
        status: 'running',
        phase: 'reading',
        files,
        rowsRead: 0,
        rowsWritten: 0,
        bytesRead: 0,
        totalBytes: 0,
        percent: 0,
        rowsPerSecond: 0,
        secondsLeft: null,
        notices: [],
        result: null,
        rejectsPath: null,
        current: null,
        switched: null,
      }),
      state,
      (job) => this.run(job, request.delimiter, request.columns),
    );
    return { ...job.view };
  }

  status(id: string): ImportJob {
    return { ...this.jobs.get(id).view };
  }

  /** The running import, else the last one of this process (a reloaded page finds it again). */
  current(): ImportJob | null {
    const job = this.jobs.latest();
    return job ? { ...job.view } : null;
  }

  /** Asks a running import to stop at its next batch; an import that ended is returned as it is. */
  cancel(id: string): ImportJob {
    // Once the new dataset is complete the import has succeeded: too late to cancel (confirm decides).
    return { ...this.jobs.cancel(id, (job) => job.view.phase === 'confirm' || job.view.phase === 'switching').view };
  }

  /** The user's answer to the confirm step: switch to the new dataset, or keep the current one. */
  confirm(id: string, switchTo: boolean): ImportJob {
    const job = this.jobs.get(id);
    if (job.view.status === 'running' && job.view.phase === 'confirm' && job.data.decide) {
      job.data.decide(switchTo);
      job.data.decide = null;
    } else if (job.view.status === 'running')
      throw new AppError('invalid_request', 'The import has not finished yet; it asks once the new dataset is complete.', 'id');
    return { ...job.view };
  }

  /** True while an import runs (or waits for its confirm step). */
  running(): boolean {
    return this.jobs.running().length > 0;
  }

  /** New datasets an import made whose switch is not decided yet: the history must not prune them. */
  pendingDatasets(): string[] {
    return this.jobs.running().map((j) => j.data.out);
  }

  /** Cancels a running import and waits until its temporary files are gone and it is audited (on shutdown). */
  async cancelAll(): Promise<void> {
    await this.jobs.cancelAll();
  }

  /** True for a rejects file an import of this process wrote (it may be shown in its folder). */
  wroteRejects(path: string): boolean {
    return this.rejectFiles.has(path);
  }

  private checkPicked(files: readonly string[]): string[] {
    const resolved = this.picked.assert(files);
    if (new Set(resolved).size !== resolved.length) throw new AppError('invalid_request', 'A file is named twice.', 'files');
    return resolved;
  }

  /** The job's work: import, note the new dataset in the history, ask, then switch (or keep the current one). */
  private async run(
    job: ImportJobEntry,
    delimiter: ImportDelimiter | undefined,
    columns: Readonly<Record<string, string>> | undefined,
  ): Promise<void> {
    const { view, data } = job;
    try {
      const summary = (data.summary = await importFiles({
        files: view.files,
        out: data.out,
        delimiter,
        columns,
        signal: job.signal,
        onProgress: (p) => this.progress(job, p),
        onNotice: (message) => view.notices.push(message),
      }));
      this.rejectFiles.add(summary.rejectsPath);
      view.rejectsPath = summary.rejectsPath;
      const ref = this.deps.noteDataset(summary.out);
      const { out: dataset, files: _files, ...counts } = summary;
      view.result = { ...counts, dataset, datasetId: ref.id };
      view.current = this.deps.currentRef();
      view.percent = 100;
      view.secondsLeft = null;
      view.phase = 'confirm';
      // Nothing switches until the user says so; shutting down meanwhile keeps the current dataset
      // (the new one stays in the history, to switch to later).
      const switchTo = await new Promise<boolean>((resolveDecision) => {
        data.decide = resolveDecision;
        if (job.signal.aborted) resolveDecision(false);
        else job.signal.addEventListener('abort', () => resolveDecision(false), { once: true });
      });
      data.decide = null;
      view.switched = switchTo;
      if (switchTo) {
        view.phase = 'switching';
        await this.deps.switchTo(summary.out);
      } else this.deps.prune();
      view.secondsLeft = 0;
    } catch (e) {
      // No row could be imported: the rejects file was still written, to say why.
      const rejects = defaultRejectsPath(data.out);
      if (!data.summary && existsSync(rejects)) {
        this.rejectFiles.add(rejects);
        view.rejectsPath = rejects;
      }
      // importFiles removed its own files; a dataset that was published but could not be opened goes too.
      if (data.summary && this.deps.currentDataset() !== data.summary.out) {
        removeAppDataset(this.deps.homeDir, data.summary.out);
        view.rejectsPath = null;
      }
      throw e;
    } finally {
      view.phase = 'finished';
    }
  }

  private progress(job: ImportJobEntry, p: ImportProgress): void {
    const { view, data } = job;
    const now = performance.now();
    if (p.phase !== view.phase) data.phaseStarted = now;
    view.phase = p.phase;
    view.rowsRead = p.rowsRead;
    view.rowsWritten = p.rowsWritten;
    view.bytesRead = p.bytesRead;
    view.totalBytes = p.totalBytes;
    view.rowsPerSecond = p.rowsPerSecond;
    // Reading is measured in bytes (rows are not known ahead); writing in rows, of at most those read.
    const [done, total] = p.phase === 'reading' ? [p.bytesRead, p.totalBytes] : [p.rowsWritten, p.rowsToWrite ?? p.rowsRead];
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    view.percent = Math.round(fraction * 1000) / 10;
    const elapsed = (now - data.phaseStarted) / 1000;
    view.secondsLeft = fraction > 0.01 && elapsed > 0.2 ? Math.ceil((elapsed * (1 - fraction)) / fraction) : null;
  }
}

function planFile(path: string, delimiter?: ImportDelimiter, chosen?: Readonly<Record<string, string>>): ImportFilePlan {
  const base = { path, name: basename(path), bytes: 0, gzip: false, delimiter: null, columns: [], absentFields: FIELDS.length };
  // The message names the full path; the panel shows the file's name beside it already.
  const said = (e: AppError) => (e.message.startsWith(`${path}: `) ? e.message.slice(path.length + 2) : e.message);
  let head;
  try {
    head = readHeader(path, delimiter);
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { ...base, error: said(e) };
  }
  // The columns are shown even when the header cannot be used yet (a required column missing), so
  // that one can be mapped.
  const fields = previewColumns(head.header, chosen);
  const columns = head.header.map((header, i) => ({ header, field: fields[i]! }));
  const found = { ...base, bytes: head.size, gzip: head.gzip, delimiter: head.delimiter, columns };
  try {
    const map = mapHeader(path, head.header, chosen);
    const filled = new Set(map.fieldOf.filter((i) => i >= 0));
    return { ...found, absentFields: FIELDS.length - filled.size, error: null };
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { ...found, error: said(e) };
  }
}

/** Deletes a dataset (and its rejects file) only if it is one the app made in `<home>/datasets/`. */
function removeAppDataset(homeDir: string, path: string): void {
  if (dirname(resolve(path)) !== resolve(homeLayout(homeDir).datasets)) return;
  rmSync(path, { force: true });
  rmSync(defaultRejectsPath(path), { force: true });
}
