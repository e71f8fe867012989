// Imports the desktop app (and browser mode) starts: the user picks files, sees how each header
// maps onto record fields, starts one import at a time, polls its progress, may cancel it, and on
// success the app switches to the new dataset at once. The reading and writing are importFiles'
// (atomic: a failure or cancel leaves the current dataset as it was); this file adds what an app
// needs around it:
//   - only files the user picked may be read: the renderer names paths, but a path that the pick
//     operation did not hand out is refused, so a page cannot make the app read arbitrary files;
//   - every import writes a new file in `<home>/datasets/`, never over the dataset in use (which
//     stays open for queries and running exports until the switch, and on Windows could not be
//     replaced while open);
//   - after the switch the previous dataset is deleted if the app made it (it lives in that
//     folder), once no export reads from it any more; keys, saved audiences and the audit log live
//     in app state and are not touched;
//   - each import, whatever its outcome, is written to the audit log.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ImportDelimiter, ImportFilePlan, ImportJob, ImportPlan } from '../../shared/contract';
import { AppError, isAppError } from '../../shared/errors';
import { FIELDS } from '../../shared/fields';
import type { AuditLog, AuditOutcome } from '../appState/auditLog';
import { defaultRejectsPath, importFiles } from './importFiles';
import { inspectSource } from './sourceFile';
import type { ImportProgress, ImportSummary } from './types';

export interface ImportJobsDeps {
  homeDir: string;
  audit: AuditLog;
  /** The dataset in use now, or null. */
  currentDataset(): string | null;
  /** Makes the new dataset current; resolves with the previous one's path once it is closed. */
  switchTo(path: string): Promise<string | null>;
}

export interface StartImport {
  files: string[];
  delimiter?: ImportDelimiter;
  /** Who asked, for the audit log: 'UI'. */
  actor: string;
}

interface Job {
  view: ImportJob;
  controller: AbortController;
  settled: Promise<void>;
  phaseStarted: number;
}

const GENERIC_FAILURE = 'The import failed unexpectedly; the dataset in use was not changed.';

/** `<home>/datasets/`: the datasets the app made itself (imports), which it may also delete. */
export function datasetsDir(homeDir: string): string {
  return join(homeDir, 'datasets');
}

/** dataset-20261123-101500-1a2b3c.sqlite: sorts by time, never the name of an existing file. */
function newDatasetName(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `dataset-${stamp}-${randomBytes(3).toString('hex')}.sqlite`;
}

export class ImportJobs {
  private readonly picked = new Set<string>();
  private readonly rejectFiles = new Set<string>();
  private readonly jobs = new Map<string, Job>();
  private latest: Job | null = null;

  constructor(private readonly deps: ImportJobsDeps) {}

  /** Files the user chose (dialog or inbox); only these may be inspected or imported. */
  allow(paths: readonly string[]): string[] {
    const resolved = paths.map((p) => resolve(p));
    for (const p of resolved) this.picked.add(p);
    return resolved;
  }

  /** Each file recognised and its header mapped, without reading its rows or writing anything. */
  plan(files: readonly string[], delimiter?: ImportDelimiter): ImportPlan {
    const plans = this.checkPicked(files).map((path) => planFile(path, delimiter));
    return { files: plans, ready: plans.every((f) => f.error === null) };
  }

  /** Starts the import in the background and returns at once; one import runs at a time. */
  start(request: StartImport): ImportJob {
    if (this.running()) throw new AppError('invalid_request', 'An import is already running; wait for it or cancel it.');
    const files = this.checkPicked(request.files);
    const dir = datasetsDir(this.deps.homeDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const out = join(dir, newDatasetName());
    const view: ImportJob = {
      id: randomBytes(8).toString('hex'),
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
    };
    const job: Job = { view, controller: new AbortController(), settled: Promise.resolve(), phaseStarted: performance.now() };
    this.jobs.set(view.id, job);
    this.latest = job;
    job.settled = this.run(job, out, request);
    return { ...view };
  }

  status(id: string): ImportJob {
    return { ...this.find(id).view };
  }

  /** The running import, else the last one of this process (a reloaded page finds it again). */
  current(): ImportJob | null {
    return this.latest ? { ...this.latest.view } : null;
  }

  /** Asks a running import to stop at its next batch; an import that ended is returned as it is. */
  cancel(id: string): ImportJob {
    const job = this.find(id);
    // Once the new dataset is being switched in, the import has succeeded: too late to cancel.
    if (job.view.status === 'running' && job.view.phase !== 'switching') job.controller.abort();
    return { ...job.view };
  }

  /** Cancels a running import and waits until its temporary files are gone (on shutdown). */
  async cancelAll(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.view.status === 'running');
    for (const job of running) job.controller.abort();
    await Promise.all(running.map((j) => j.settled));
  }

  /** True for a rejects file an import of this process wrote (it may be shown in its folder). */
  wroteRejects(path: string): boolean {
    return this.rejectFiles.has(path);
  }

  private running(): boolean {
    return [...this.jobs.values()].some((j) => j.view.status === 'running');
  }

  private checkPicked(files: readonly string[]): string[] {
    const resolved = files.map((f) => resolve(f));
    const foreign = resolved.find((f) => !this.picked.has(f));
    if (foreign !== undefined)
      throw new AppError(
        'forbidden',
        `${basename(foreign)} was not chosen with "Choose files"; only chosen files can be imported.`,
        'files',
      );
    if (new Set(resolved).size !== resolved.length) throw new AppError('invalid_request', 'A file is named twice.', 'files');
    return resolved;
  }

  private async run(job: Job, out: string, request: StartImport): Promise<void> {
    const { view } = job;
    let outcome: AuditOutcome;
    let summary: ImportSummary | null = null;
    try {
      summary = await importFiles({
        files: view.files,
        out,
        delimiter: request.delimiter,
        signal: job.controller.signal,
        onProgress: (p) => this.progress(job, p),
        onNotice: (message) => view.notices.push(message),
      });
      this.rejectFiles.add(summary.rejectsPath);
      view.rejectsPath = summary.rejectsPath;
      view.phase = 'switching';
      view.secondsLeft = null;
      const previous = await this.deps.switchTo(summary.out);
      const { out: dataset, files: _files, ...counts } = summary;
      view.result = { ...counts, dataset };
      view.status = 'done';
      view.percent = 100;
      view.secondsLeft = 0;
      outcome = 'done';
      if (previous && previous !== summary.out) removeAppDataset(this.deps.homeDir, previous);
    } catch (e) {
      outcome = job.controller.signal.aborted ? 'cancelled' : 'failed';
      view.status = outcome;
      if (outcome === 'failed') view.error = isAppError(e) ? e.message : GENERIC_FAILURE;
      // No row could be imported: the rejects file was still written, to say why.
      const rejects = defaultRejectsPath(out);
      if (!summary && existsSync(rejects)) {
        this.rejectFiles.add(rejects);
        view.rejectsPath = rejects;
      }
      // importFiles removed its own files; a dataset that was published but could not be opened goes too.
      if (summary && this.deps.currentDataset() !== summary.out) {
        removeAppDataset(this.deps.homeDir, summary.out);
        view.rejectsPath = null;
      }
    } finally {
      view.phase = 'finished';
    }
    try {
      this.deps.audit.record({
        actor: request.actor,
        action: 'import',
        audience: { state: '', filters: [] },
        records: summary?.records ?? 0,
        file: outcome === 'done' ? out : view.files.map((f) => basename(f)).join(', '),
        outcome,
      });
    } catch {
      // App state already closed (shutdown): there is no one left to tell.
    }
  }

  private progress(job: Job, p: ImportProgress): void {
    const { view } = job;
    const now = performance.now();
    if (p.phase !== view.phase) job.phaseStarted = now;
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
    const elapsed = (now - job.phaseStarted) / 1000;
    view.secondsLeft = fraction > 0.01 && elapsed > 0.2 ? Math.ceil((elapsed * (1 - fraction)) / fraction) : null;
  }

  private find(id: string): Job {
    const job = this.jobs.get(id);
    if (!job) throw new AppError('not_found', `No import job with id ${JSON.stringify(id.slice(0, 40))}.`, 'id');
    return job;
  }
}

function planFile(path: string, delimiter?: ImportDelimiter): ImportFilePlan {
  const base = { path, name: basename(path), bytes: 0, gzip: false, delimiter: null, columns: [], absentFields: FIELDS.length };
  try {
    const info = inspectSource(path, delimiter);
    const columns = info.header.map((header, i) => {
      const index = info.map.fieldOf[i]!;
      return { header, field: index >= 0 ? FIELDS[index]!.name : null };
    });
    const filled = new Set(info.map.fieldOf.filter((i) => i >= 0));
    return {
      ...base,
      bytes: info.size,
      gzip: info.gzip,
      delimiter: info.delimiter,
      columns,
      absentFields: FIELDS.length - filled.size,
      error: null,
    };
  } catch (e) {
    if (!isAppError(e)) throw e;
    // The message names the full path; the panel shows the file's name beside it already.
    return { ...base, error: e.message.startsWith(`${path}: `) ? e.message.slice(path.length + 2) : e.message };
  }
}

/** Deletes a dataset (and its rejects file) only if it is one the app made in `<home>/datasets/`. */
function removeAppDataset(homeDir: string, path: string): void {
  if (dirname(resolve(path)) !== resolve(datasetsDir(homeDir))) return;
  rmSync(path, { force: true });
  rmSync(defaultRejectsPath(path), { force: true });
}
