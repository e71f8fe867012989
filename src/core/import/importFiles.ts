// Bring-your-own-data import: vendor files (CSV, tab or pipe, optionally gzipped) become a new
// dataset that replaces the old one atomically, and every row read is either imported or written to
// the rejects file with its reason. The CLI (`import`) and the desktop app both call importFiles.
//
//   1. check    every file is recognised and its header mapped before anything is written;
//               leftovers of killed imports are removed.
//   2. read     a worker thread (rowSource) streams each file through papaparse and checks each
//               row (rowRules); on this thread each rejected row goes to the rejects file and each
//               accepted one to recordSinks: straight into DatasetWriter, which builds the vectors
//               here, while the rows come in (STATE, PID) order (the app's own exports); else the
//               import reads again from the start into the staging table, a SQLite file beside
//               the target, and the worker builds the vectors in arrival order (columnSet).
//   3. write    when staged: duplicates are dropped (the row read last wins), the records are
//               copied SQLite to SQLite in (STATE, PID) order into DatasetWriter's file, and the
//               vectors permuted into that order. The writer builds `<out>.building-<pid>` and
//               renames it over <out> only when complete: a crash, kill or cancel at any moment
//               leaves the previous dataset as it was.
import { existsSync, closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { buildStringColumn, ColumnSet, needsRebuild, permuteColumn, type BuiltColumn } from '../dataset/columnSet';
import type { RecordValues } from '../dataset/recordFormat';
import { DatasetWriter } from '../dataset/datasetWriter';
import { removeLeftovers, stagingPathFor } from './leftovers';
import { RejectsFile } from './rejectsFile';
import type { RowBatch } from './readRows';
import { NotSorted, SortedRecords, StagedRecords } from './recordSinks';
import { readBatches } from './rowSource';
import { sideBySide, writerBuilds } from './vectorShare';
import { inspectSource, type SourceInfo } from './sourceFile';
import { Staging } from './staging';
import type { FileSummary, ImportOptions, ImportProgress, ImportSummary } from './types';

export type { Delimiter, ImportOptions, ImportProgress, ImportSummary, RejectedRow, FileSummary } from './types';

const PROGRESS_INTERVAL_MS = 200;
/** Staged records copied into the dataset per statement: a cancel waits at most for one run. */
const RUN_LENGTH = 20_000;

const cancelled = (): AppError => new AppError('invalid_request', 'The import was cancelled.');
const yieldToEventLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

export function defaultRejectsPath(out: string): string {
  return `${out}.rejects.csv`;
}

function isSqliteFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\0';
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks the arguments of an import (files readable, target folder present, no path used twice, an
 * existing target is a SQLite file and not something else to clobber). Throws AppError with the
 * field at fault; the CLI turns these into usage errors.
 */
export function checkImportArguments(options: Pick<ImportOptions, 'files' | 'out' | 'rejectsPath'>): { out: string; rejectsPath: string } {
  const bad = (field: string, message: string): AppError => new AppError('invalid_request', message, field);
  if (options.files.length === 0) throw bad('files', 'Name at least one file to import.');
  if (!options.out) throw bad('out', 'Name the dataset file to write.');
  const out = resolve(options.out);
  const rejectsPath = resolve(options.rejectsPath ?? defaultRejectsPath(out));
  const inputs = new Set<string>();
  for (const file of options.files) {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      throw bad('files', `${file}: no such file.`);
    }
    if (!stat.isFile()) throw bad('files', `${file}: is not a file.`);
    inputs.add(resolve(file));
  }
  for (const [field, path] of [['out', out], ['rejectsPath', rejectsPath]] as const) {
    if (inputs.has(path)) throw bad(field, `${path} is also an input file.`);
    const dir = dirname(path);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw bad(field, `${dir}: no such folder.`);
    if (existsSync(path) && !statSync(path).isFile()) throw bad(field, `${path}: is not a file.`);
  }
  if (out === rejectsPath) throw bad('rejectsPath', 'The rejects file cannot be the dataset file.');
  if (existsSync(out) && statSync(out).size > 0 && !isSqliteFile(out))
    throw bad('out', `${out} exists and is not a dataset file; refusing to replace it.`);
  return { out, rejectsPath };
}

export async function importFiles(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const { signal, onProgress, onNotice } = options;
  const { out, rejectsPath } = checkImportArguments(options);
  if (signal?.aborted) throw cancelled();
  removeLeftovers(out, rejectsPath);

  // 1. Recognise every file first: a bad header fails the import before anything is written.
  const sources: SourceInfo[] = options.files.map((file) => inspectSource(file, options.delimiter));
  const files: FileSummary[] = sources.map((s) => ({ path: s.path, gzip: s.gzip, delimiter: s.delimiter, read: 0, imported: 0, rejected: 0, unknownColumns: s.map.unknown }));
  for (const f of files)
    if (f.unknownColumns.length > 0)
      onNotice?.(`${f.path}: ignored ${f.unknownColumns.length} unknown column${f.unknownColumns.length > 1 ? 's' : ''}: ${f.unknownColumns.join(', ')}`);
  const totalBytes = sources.reduce((sum, s) => sum + s.size, 0);
  const fileStart = sources.map((_, i) => sources.slice(0, i).reduce((sum, s) => sum + s.size, 0));
  const metadata = { source: 'import', import_files: JSON.stringify(sources.map((s) => basename(s.path))) };

  const counts = { read: 0, imported: 0, rejected: 0 };
  let lastReport = 0;
  let lastPhase = '';
  let rowsReported = 0;
  const report = (progress: Omit<ImportProgress, 'totalBytes'>, force = false): void => {
    const now = performance.now();
    if (!onProgress || (!force && progress.phase === lastPhase && now - lastReport < PROGRESS_INTERVAL_MS)) return;
    // A reading started again (see NotSorted) reports nothing until it is past where the first stopped.
    if (progress.phase === 'reading' && progress.rowsRead < rowsReported) return;
    rowsReported = progress.rowsRead;
    lastReport = now;
    lastPhase = progress.phase;
    onProgress({ ...progress, totalBytes });
  };

  const rejects = new RejectsFile(rejectsPath);
  const sorted = new SortedRecords(() => new DatasetWriter(out, metadata));
  let staged: StagedRecords | undefined;
  let writer: DatasetWriter | undefined;
  // The vectors over the staged rows, in arrival order: the reading thread's share, then with this
  // thread's (writerColumns) side by side (vectorShare.ts).
  let columns: BuiltColumn[] | undefined;
  let writerColumns: ColumnSet | undefined;
  // What the writer stores: those, or (staged rows) each put in (STATE, PID) order when it is written.
  let finalColumns: Iterable<BuiltColumn> | undefined;
  const takeColumns = (built: BuiltColumn[]): void => {
    columns = built;
  };
  try {
    // 2. Read, and write while the rows come in (STATE, PID) order.
    let readStarted = performance.now();
    const take = (batch: RowBatch): void => {
      if (signal?.aborted) throw cancelled();
      const summary = files[batch.file]!;
      for (const r of batch.rejects) rejects.add({ file: summary.path, ...r });
      const seq = counts.imported;
      counts.read += batch.read;
      counts.imported += batch.accepted;
      counts.rejected += batch.rejects.length;
      summary.read += batch.read;
      summary.imported += batch.accepted;
      summary.rejected += batch.rejects.length;
      if (batch.accepted > 0) {
        const texts = batch.json.split('\n');
        if (staged) {
          staged.add(batch.keys, texts, seq);
          for (const text of texts) writerColumns!.push(JSON.parse(text) as RecordValues);
        }
        else sorted.add(batch.keys, texts); // NotSorted: read again, staging (below)
      }
      report({ phase: 'reading', rowsRead: counts.read, bytesRead: fileStart[batch.file]! + batch.bytesRead, rowsWritten: sorted.written, rowsPerSecond: rate(counts.read, readStarted) });
    };
    try {
      // Rows in order are written as they come, their vectors built here from their values while
      // the reading thread parses the next rows: the two threads share the work.
      await readBatches(sources, take, signal);
      writer = sorted.dataset;
    } catch (e) {
      if (!(e instanceof NotSorted)) throw e;
      // The order broke (a file in any other order shows it in its first batch): start again,
      // staging every row, with the reading thread building the vectors in arrival order, since
      // this thread's share is then the staging; what was written or rejected so far is dropped.
      sorted.dataset?.abort();
      sorted.written = 0;
      rejects.reset();
      counts.read = counts.imported = counts.rejected = 0;
      for (const f of files) f.read = f.imported = f.rejected = 0;
      readStarted = performance.now();
      staged = new StagedRecords(new Staging(stagingPathFor(out)));
      writerColumns = new ColumnSet(undefined, writerBuilds);
      await readBatches(sources, take, signal, takeColumns);
      columns = sideBySide(columns!, writerColumns.finish());
      writerColumns = undefined;
    }
    report({ phase: 'reading', rowsRead: counts.read, bytesRead: totalBytes, rowsWritten: sorted.written, rowsPerSecond: rate(counts.read, readStarted) }, true);
    if (signal?.aborted) throw cancelled();

    // 3. Write (staged rows): one record per PID, in (STATE, PID) order, into a new dataset file.
    const { replaced, records } = staged ? staged.staging.dedupe(staged.duplicates) : { replaced: 0, records: counts.imported };
    if (counts.imported === 0) {
      rejects.publish();
      throw new AppError(
        'invalid_request',
        counts.read === 0
          ? 'The files hold no rows; the dataset was not replaced.'
          : `None of the ${counts.read} rows could be imported (see ${rejectsPath}); the dataset was not replaced.`,
        'files',
      );
    }
    // Sorted rows were written while read: their writing rate is over the whole pass.
    const writeStarted = staged ? performance.now() : readStarted;
    let written = sorted.written;
    if (staged) {
      const { staging } = staged;
      const { seqs, first, runs } = staging.order(RUN_LENGTH);
      writer = new DatasetWriter(out, metadata);
      writer.appendText(first.state, first.pid, first.record);
      writer.attach(staging.path);
      for (const run of runs) {
        writer.appendSelected(run.state, run.count, Staging.RUN_SELECT, [run.state, run.after, run.count]);
        written = writer.count;
        await yieldToEventLoop(); // lets a cancel (or a signal handler) in
        if (signal?.aborted) throw cancelled();
        report({ phase: 'writing', rowsRead: counts.read, bytesRead: totalBytes, rowsWritten: written, rowsToWrite: records, rowsPerSecond: rate(written, writeStarted) });
      }
      writer.detach();
      // (Rare) a column that cannot be permuted exactly is built again from the staged records
      // now, while the staging file is open.
      const rebuilt = new Set<number>();
      columns!.forEach((column, i) => {
        if (!needsRebuild(column, staged!.duplicates)) return;
        columns![i] = buildStringColumn(column.field, staging.fieldValues(column.field));
        rebuilt.add(i);
      });
      finalColumns = inFinalOrder(columns!, seqs, rebuilt);
      columns = undefined;
    }
    if (signal?.aborted) throw cancelled();
    const stagingGone = staged?.staging.disposeInBackground();
    rejects.complete(); // a full disk fails here, before the dataset is replaced
    writer!.finish(finalColumns ?? columns);
    columns = finalColumns = undefined;
    rejects.publish();
    await stagingGone;
    report({ phase: 'writing', rowsRead: counts.read, bytesRead: totalBytes, rowsWritten: written, rowsToWrite: records, rowsPerSecond: rate(written, writeStarted) }, true);
    return {
      ...counts,
      replaced,
      records,
      seconds: Math.round(performance.now() - started) / 1000,
      out,
      rejectsPath,
      files,
    };
  } catch (e) {
    (writer ?? sorted.dataset)?.abort();
    rejects.discard();
    throw e;
  } finally {
    staged?.staging.dispose();
  }
}

/**
 * The vectors built in arrival order, each put in (STATE, PID) order when the writer asks for it
 * (so one arrival vector is let go as one final vector is made: memory does not double).
 */
function* inFinalOrder(arrival: BuiltColumn[], seqs: Uint32Array, alreadyFinal: Set<number>): Generator<BuiltColumn> {
  for (let i = 0; i < arrival.length; i++) {
    const column = arrival[i]!;
    arrival[i] = undefined as unknown as BuiltColumn;
    yield alreadyFinal.has(i) ? column : permuteColumn(column, seqs);
  }
}

function rate(rows: number, since: number): number {
  const seconds = (performance.now() - since) / 1000;
  return seconds > 0 ? Math.round(rows / seconds) : 0;
}
