// Bring-your-own-data import: vendor files (CSV, tab or pipe, optionally gzipped) become a new
// dataset that replaces the old one atomically, and every row read is either imported or written to
// the rejects file with its reason. The CLI (`import`) and the desktop app both call importFiles.
//
//   1. check    every file is recognised and its header mapped before anything is written;
//               leftovers of killed imports are removed.
//   2. read     csv-parse streams each file; each row is checked (rowRules) and either staged
//               (Staging: a SQLite file beside the target) or written to the rejects file.
//   3. write    duplicates are dropped (the row read last wins), the rest is read back in
//               (STATE, PID) order into DatasetWriter, which builds `<out>.building-<pid>` and
//               renames it over <out> only when complete: a crash, kill or cancel at any moment
//               leaves the previous dataset as it was.
import { existsSync, closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { fieldIndex } from '../../shared/fields';
import { DatasetWriter } from '../dataset/datasetWriter';
import type { RecordValues } from '../dataset/recordFormat';
import { removeLeftovers, stagingPathFor } from './leftovers';
import { RejectsFile } from './rejectsFile';
import { RowChecker } from './rowRules';
import { inspectSource, streamRecords, type SourceInfo } from './sourceFile';
import { Staging } from './staging';
import type { FileSummary, ImportOptions, ImportProgress, ImportSummary, RejectedRow } from './types';

export type { Delimiter, ImportOptions, ImportProgress, ImportSummary, RejectedRow, FileSummary } from './types';

const PROGRESS_INTERVAL_MS = 200;
const YIELD_EVERY = 2000;
const PID = fieldIndex('PID');
const STATE = fieldIndex('STATE');

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

  const counts = { read: 0, imported: 0, rejected: 0 };
  let bytesDone = 0;
  let lastReport = 0;
  let lastPhase = '';
  const report = (progress: Omit<ImportProgress, 'totalBytes'>, force = false): void => {
    const now = performance.now();
    if (!onProgress || (!force && progress.phase === lastPhase && now - lastReport < PROGRESS_INTERVAL_MS)) return;
    lastReport = now;
    lastPhase = progress.phase;
    onProgress({ ...progress, totalBytes });
  };

  const staging = new Staging(stagingPathFor(out));
  const rejects = new RejectsFile(rejectsPath);
  let writer: DatasetWriter | undefined;
  try {
    // 2. Read: every row is staged or rejected; `seq` is its position in the whole input.
    let seq = 0;
    for (let i = 0; i < sources.length; i++) {
      if (signal?.aborted) throw cancelled();
      const source = sources[i]!;
      const summary = files[i]!;
      const checker = new RowChecker(source.map);
      const reject = (row: Omit<RejectedRow, 'file'>): void => {
        rejects.add({ file: source.path, ...row });
        counts.rejected++;
        summary.rejected++;
      };
      let header = true;
      const stream = streamRecords(
        source,
        {
          record: ({ cells, line, raw }) => {
            if (header) {
              header = false;
              if (cells.length !== source.header.length || cells.some((c, k) => c !== source.header[k]))
                throw new AppError('invalid_request', `${source.path}: the header line holds a quoted line break; write the header on one line.`, 'files');
              return;
            }
            counts.read++;
            summary.read++;
            // csv-parse decodes UTF-8; bytes that are not UTF-8 come out as U+FFFD.
            const values = raw.includes('\uFFFD') ? undefined : checker.check(cells);
            if (values === undefined) reject({ line, field: '', reason: 'not valid UTF-8 text', raw });
            else if (values === null) reject({ line, field: checker.field, reason: checker.reason, raw });
            else {
              staging.add(seq++, values[PID] as string, values[STATE] as string, JSON.stringify(values));
              counts.imported++;
              summary.imported++;
            }
            if ((counts.read & 1023) === 0)
              report({ phase: 'reading', rowsRead: counts.read, bytesRead: bytesDone + stream.file.bytesRead, rowsWritten: 0, rowsPerSecond: rate(counts.read, started) });
          },
          unclosed: ({ line, raw }) => {
            counts.read++;
            summary.read++;
            reject({ line, field: '', reason: 'a quoted field is never closed (the row runs to the end of the file)', raw });
          },
        },
        signal,
      );
      await stream.done;
      bytesDone += source.size;
    }
    report({ phase: 'reading', rowsRead: counts.read, bytesRead: bytesDone, rowsWritten: 0, rowsPerSecond: rate(counts.read, started) }, true);
    if (signal?.aborted) throw cancelled();

    // 3. Write: one record per PID, in (STATE, PID) order, into a new dataset file.
    const { replaced, records } = staging.dedupe();
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
    const writeStarted = performance.now();
    writer = new DatasetWriter(out, { source: 'import', import_files: JSON.stringify(sources.map((s) => basename(s.path))) });
    let written = 0;
    for (const text of staging.sorted()) {
      writer.append(JSON.parse(text) as RecordValues);
      if (++written % YIELD_EVERY === 0) {
        await yieldToEventLoop(); // lets a cancel (or a signal handler) in
        if (signal?.aborted) throw cancelled();
        report({ phase: 'writing', rowsRead: counts.read, bytesRead: bytesDone, rowsWritten: written, rowsPerSecond: rate(written, writeStarted) });
      }
    }
    if (signal?.aborted) throw cancelled();
    rejects.complete(); // a full disk fails here, before the dataset is replaced
    writer.finish();
    rejects.publish();
    report({ phase: 'writing', rowsRead: counts.read, bytesRead: bytesDone, rowsWritten: written, rowsPerSecond: rate(written, writeStarted) }, true);
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
    writer?.abort();
    rejects.discard();
    throw e;
  } finally {
    staging.dispose();
  }
}

function rate(rows: number, since: number): number {
  const seconds = (performance.now() - since) / 1000;
  return seconds > 0 ? Math.round(rows / seconds) : 0;
}
