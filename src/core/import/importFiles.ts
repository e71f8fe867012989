// The import's public entry, called by the CLI (`import`) and the app's import jobs: vendor files
// (CSV, tab or pipe, gzip too) become a new dataset that replaces `out` atomically, every row read
// imported or in the rejects file with its reason. Checks the arguments and recognises every file
// before anything is written; the phases are importRun.ts'. docs/import.md.
import { closeSync, existsSync, lstatSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { diskFullError, isDiskFull } from '../fs/diskFull';
import { checkRegular } from '../fs/regularFile';
import { throwIfCancelled } from './cancelled';
import { ImportRun } from './importRun';
import { inspectSource } from './source/sourceFile';
import { removeLeftovers } from './tempFiles';
import type { ImportOptions, ImportSummary } from './types';

export type { Delimiter, ImportOptions, ImportProgress, ImportSummary, RejectedRow, FileSummary } from './types';

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
export function checkImportArguments(options: Pick<ImportOptions, 'files' | 'out' | 'rejectsPath' | 'followLinks'>): {
  out: string;
  rejectsPath: string;
} {
  const bad = (field: string, message: string): AppError => new AppError('invalid_request', message, field);
  if (options.files.length === 0) throw bad('files', 'Name at least one file to import.');
  if (!options.out) throw bad('out', 'Name the dataset file to write.');
  const out = resolve(options.out);
  const rejectsPath = resolve(options.rejectsPath ?? defaultRejectsPath(out));
  const inputs = new Set<string>();
  for (const file of options.files) {
    let stat;
    try {
      stat = options.followLinks ? statSync(file) : lstatSync(file);
    } catch {
      throw bad('files', `${file}: no such file.`);
    }
    checkRegular(file, stat, { field: 'files' });
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
  throwIfCancelled(signal);
  removeLeftovers(out, rejectsPath);
  // Every file recognised first: a bad header fails the import before anything is written.
  const sources = options.files.map((file) => inspectSource(file, options.delimiter, options.followLinks, options.columns));
  try {
    return await new ImportRun({ out, rejectsPath, sources, signal, onProgress, onNotice, started }).run();
  } catch (e) {
    // The import's own files are gone by now; the dataset it builds takes about as much as its input
    // twice over while rows out of order wait in the staging file (docs/import.md, Safety).
    if (isDiskFull(e)) throw diskFullError(out, 2 * sources.reduce((a, s) => a + s.size, 0));
    throw e;
  }
}
