// Bring-your-own-data import: vendor files (CSV, tab or pipe, optionally gzipped) become a new
// dataset that replaces the old one atomically, and every row read is either imported or written to
// the rejects file with its reason. The CLI (`import`) and the desktop app both call importFiles.
//
//   1. check    every file is recognised and its header mapped before anything is written;
//               leftovers of killed imports are removed.
//   2. read     worker threads (rowSource) stream the files through papaparse and check each
//               row (rowRules); on this thread each rejected row goes to the rejects file and each
//               accepted one to recordSinks: straight into DatasetWriter, which builds the vectors
//               here, while the rows come in (STATE, PID) order (the app's own exports); else
//               (seen in a file's first rows, or when a row breaks the order) every row is read
//               from the start into the staging file beside the target, by two readers over the
//               two halves of the input (readShares), which build the vectors in arrival order
//               and keep them in spill files beside the target (vectorSpill.ts).
//   3. write    when staged: duplicates are dropped (the row read last wins), the records are
//               written in (STATE, PID) order into DatasetWriter's file while a worker merges the
//               vectors and puts them in that order (finalOrder), one field at a time. The writer builds
//               `<out>.building-<pid>` and renames it over <out> only when complete: a crash,
//               kill or cancel at any moment leaves the previous dataset as it was.
import { existsSync, closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { buildStringColumn, ColumnSet, type BuiltColumn } from '../dataset/columnSet';
import { needsRebuild } from '../dataset/columnOrder';
import { loadSpilledColumns, VectorSpill, type SpilledColumn } from '../dataset/vectorSpill';
import { startFinalOrder, type FinalOrder } from './finalOrder';
import type { RecordValues } from '../dataset/recordFormat';
import { DatasetWriter } from '../dataset/datasetWriter';
import { removeLeftovers, stagingPathFor } from './leftovers';
import { RejectsFile } from './rejectsFile';
import type { RowBatch } from './readRows';
import { NotSorted, SortedRecords, StagedRecords } from './recordSinks';
import { MisalignedCut, planShares, wholeFiles, type FilePart } from './readShares';
import { readBatches } from './rowSource';
import { writerBuilds } from './vectorShare';
import { inspectSource, type SourceInfo } from './sourceFile';
import { Staging } from './staging';
import type { FileSummary, ImportOptions, ImportProgress, ImportSummary } from './types';

export type { Delimiter, ImportOptions, ImportProgress, ImportSummary, RejectedRow, FileSummary } from './types';

const PROGRESS_INTERVAL_MS = 200;
/** Staged records written into the dataset between two looks at a cancel. */
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
  for (const [field, path] of [
    ['out', out],
    ['rejectsPath', rejectsPath],
  ] as const) {
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
  const files: FileSummary[] = sources.map((s) => ({
    path: s.path,
    gzip: s.gzip,
    delimiter: s.delimiter,
    read: 0,
    imported: 0,
    rejected: 0,
    unknownColumns: s.map.unknown,
  }));
  for (const f of files)
    if (f.unknownColumns.length > 0)
      onNotice?.(
        `${f.path}: ignored ${f.unknownColumns.length} unknown column${f.unknownColumns.length > 1 ? 's' : ''}: ${f.unknownColumns.join(', ')}`,
      );
  const totalBytes = sources.reduce((sum, s) => sum + s.size, 0);
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
  // The vectors over the staged rows, in arrival order, as each thread built them: by reader
  // (readers in input order), then this thread's share when there is one reader (vectorShare.ts).
  // They are kept in spill files, removed at the end whatever happens.
  let readerColumns: SpilledColumn[][] = [];
  let writerColumns: ColumnSet | undefined;
  let writerSpill: VectorSpill | undefined;
  const spills: string[] = [];
  const spillPath = (name: string): string => {
    // Each reading gets its own names, so no file of an abandoned reading is ever written again.
    const path = `${out}.building-${process.pid}-vectors-${spills.length}${name}`;
    spills.push(path);
    return path;
  };
  // What the writer stores: for staged rows, each field's vector put in (STATE, PID) order, on a
  // worker while this thread writes the records (finalOrder.ts).
  let finalOrder: FinalOrder | undefined;
  let finalColumns: Iterable<BuiltColumn> | undefined;
  // Bytes of its share each reader has consumed.
  let readerBytes: number[] = [];
  try {
    // 2. Read, and write while the rows come in (STATE, PID) order.
    let readStarted = performance.now();
    const take = (batch: RowBatch, reader: number): void => {
      if (signal?.aborted) throw cancelled();
      const summary = files[batch.file]!;
      for (const r of batch.rejects) rejects.add({ file: summary.path, ...r }, reader);
      counts.read += batch.read;
      counts.imported += batch.accepted;
      counts.rejected += batch.rejects.length;
      summary.read += batch.read;
      summary.imported += batch.accepted;
      summary.rejected += batch.rejects.length;
      readerBytes[reader] = batch.bytesRead;
      if (batch.accepted > 0) {
        if (staged) {
          staged.add(reader, batch.keys, batch.json, batch.accepted);
          if (writerColumns) for (const text of batch.json.split('\n')) writerColumns.push(JSON.parse(text) as RecordValues);
        } else sorted.add(batch.keys, batch.json.split('\n')); // NotSorted: read again, staging (below)
      }
      const bytesRead = readerBytes.reduce((sum, b) => sum + b, 0);
      report({
        phase: 'reading',
        rowsRead: counts.read,
        bytesRead,
        rowsWritten: sorted.written,
        rowsPerSecond: rate(counts.read, readStarted),
      });
    };
    // Reads every row again from the start into the staging file, on the given shares: what was
    // written, staged or rejected before is dropped.
    const readStaged = async (shares: FilePart[][]): Promise<void> => {
      rejects.reset();
      counts.read = counts.imported = counts.rejected = 0;
      for (const f of files) f.read = f.imported = f.rejected = 0;
      readerBytes = [];
      readStarted = performance.now();
      staged?.staging.dispose();
      staged = new StagedRecords(new Staging(stagingPathFor(out)));
      readerColumns = [];
      // One reader: this thread builds a share of the vectors (it has time left); two: none.
      writerSpill?.close();
      writerSpill = shares.length === 1 ? new VectorSpill(spillPath('w')) : undefined;
      writerColumns = writerSpill && new ColumnSet(undefined, writerBuilds, writerSpill);
      const build = shares.length === 1 ? 'share' : 'all';
      await readBatches(
        sources,
        shares,
        take,
        signal,
        build,
        (built, reader) => (readerColumns[reader] = built),
        (reader) => spillPath(`r${reader}`),
      );
    };
    try {
      // Rows in order are written as they come, their vectors built here from their values while
      // the reading thread parses the next rows: the two threads share the work. A file whose
      // first rows are out of order already says that this cannot work: staged from the start.
      if (sources.some((s) => !s.headInOrder)) throw new NotSorted();
      await readBatches(sources, [wholeFiles(sources)], take, signal);
      sorted.checkPids();
      writer = sorted.dataset;
    } catch (e) {
      if (!(e instanceof NotSorted)) throw e;
      // The order broke (a file in any other order shows it in its first batch): start again,
      // staging every row, on two readers that build the vectors in arrival order, since this
      // thread's share is then the staging.
      sorted.dataset?.abort();
      sorted.written = 0;
      try {
        await readStaged(planShares(sources, 2));
      } catch (e) {
        if (!(e instanceof MisalignedCut)) throw e;
        await readStaged([wholeFiles(sources)]); // the cut fell inside a quoted field: one reader
      }
    }
    report(
      {
        phase: 'reading',
        rowsRead: counts.read,
        bytesRead: totalBytes,
        rowsWritten: sorted.written,
        rowsPerSecond: rate(counts.read, readStarted),
      },
      true,
    );
    if (signal?.aborted) throw cancelled();

    // 3. Write (staged rows): one record per PID, in (STATE, PID) order, into a new dataset file.
    const { replaced, records } = staged ? staged.staging.dedupe() : { replaced: 0, records: counts.imported };
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
      const byField = fieldParts([...readerColumns, writerColumns?.spilled() ?? []], staging.readerCounts);
      readerColumns = [];
      writerColumns = undefined;
      // Shared with the worker that puts the vectors in this order while the records are written.
      const order = new Uint32Array(new SharedArrayBuffer(records * 4));
      staging.order(order);
      // (Rare) a column that cannot be merged exactly is built again from the staged records
      // once they are written (see below); the others are merged.
      const rebuild = [...byField].filter(([, parts]) => needsRebuild(parts, replaced > 0)).map(([field]) => field);
      finalOrder = startFinalOrder({
        fields: [...byField].filter(([field]) => !rebuild.includes(field)),
        order,
        outPath: spillPath('final'),
      });
      writer = new DatasetWriter(out, metadata);
      for (const { state, text } of staging.records()) {
        writer.appendText(state, null, text); // in (STATE, PID) order: the staging sorted them
        if (writer.count % RUN_LENGTH !== 0 && writer.count !== records) continue;
        written = writer.count;
        await yieldToEventLoop(); // lets a cancel (or a signal handler) in
        if (signal?.aborted) throw cancelled();
        report({
          phase: 'writing',
          rowsRead: counts.read,
          bytesRead: totalBytes,
          rowsWritten: written,
          rowsToWrite: records,
          rowsPerSecond: rate(written, writeStarted),
        });
      }
      if (writer.count !== records) throw new Error(`${writer.count} records were written of ${records} staged.`);
      const rebuilt = rebuild.map((field) => buildStringColumn(field, staging.fieldValues(field)));
      const ordered = await finalOrder.columns;
      finalColumns = (function* () {
        yield* rebuilt;
        yield* loadSpilledColumns(ordered); // one field at a time, as the writer takes them
      })();
    }
    if (signal?.aborted) throw cancelled();
    const stagingGone = staged?.staging.disposeInBackground();
    rejects.complete(); // a full disk fails here, before the dataset is replaced
    writer!.finish(finalColumns);
    finalColumns = undefined;
    rejects.publish();
    await stagingGone;
    report(
      {
        phase: 'writing',
        rowsRead: counts.read,
        bytesRead: totalBytes,
        rowsWritten: written,
        rowsToWrite: records,
        rowsPerSecond: rate(written, writeStarted),
      },
      true,
    );
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
    await finalOrder?.stop();
    staged?.staging.dispose();
    writerSpill?.close();
    for (const path of spills) rmSync(path, { force: true });
  }
}

/**
 * Each field's vectors as built by the threads that read the staged rows, in arrival order:
 * `sets` in reader order (each reader's arrivals follow the previous reader's), then this thread's
 * share, which covers every arrival of the single reader. A field has one part per thread that
 * built it; `readerCounts` (the staging's rows by reader) checks that they cover the same rows.
 */
function fieldParts(sets: readonly SpilledColumn[][], readerCounts: readonly number[]): Map<number, SpilledColumn[]> {
  const byField = new Map<number, SpilledColumn[]>();
  for (const set of sets)
    for (const column of set) (byField.get(column.field) ?? byField.set(column.field, []).get(column.field)!).push(column);
  const total = readerCounts.reduce((sum, n) => sum + n, 0);
  for (const parts of byField.values()) {
    const lengths = parts.map((p) => p.length);
    const covers = parts.length === 1 ? lengths[0] === total : lengths.every((n, k) => n === (readerCounts[k] ?? 0));
    if (!covers) throw new Error(`The vectors built while reading cover ${lengths.join('+')} rows; ${readerCounts.join('+')} were staged.`);
  }
  return byField;
}

function rate(rows: number, since: number): number {
  const seconds = (performance.now() - since) / 1000;
  return seconds > 0 ? Math.round(rows / seconds) : 0;
}
