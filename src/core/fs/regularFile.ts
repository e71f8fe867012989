// Opening a file someone named for reading (an import's vendor files, a suppression list) without
// being led elsewhere or made to wait. A symbolic link is refused unless the caller follows links
// (the CLI, whose user typed the path): in the app a link in the import inbox would make it read,
// and show the header of, any file the link names. Anything that is not a regular file (a FIFO, a
// device, a folder) is refused before it is opened: opening a FIFO waits for a writer, which would
// hang the app. The checks hold against a file swapped between them: it is opened with O_NOFOLLOW
// and O_NONBLOCK where the platform has them, and what was opened must be the very regular file
// that was looked at (same device and inode), which also covers a platform without O_NOFOLLOW.
import { closeSync, constants, fstatSync, lstatSync, openSync, statSync, type Stats } from 'node:fs';
import { AppError } from '../../shared/errors';

/** Which file a path led to: a later open must find the same one. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export interface RegularFileOptions {
  /** Follow a symbolic link (the CLI); else a link is refused. */
  followLinks?: boolean;
  /** The field a refusal names (AppError.field). */
  field?: string;
  /** How the file is named in a refusal; its path by default. */
  label?: string;
  /** The file an earlier open found: a different one now is refused. */
  expect?: FileIdentity;
}

const O_NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK: number = constants.O_NONBLOCK ?? 0;

const refuse = (options: RegularFileOptions, path: string, what: string): AppError =>
  new AppError('invalid_request', `${options.label ?? path}: ${what}`, options.field);

const LINK = 'is a symbolic link; only regular files are read (choose or copy the file itself, not a link to it).';
const NOT_REGULAR = 'is not a regular file (a folder, a pipe or a device); only regular files are read.';
const CHANGED = 'was replaced by another file while it was being read; try again.';

const sameFile = (a: FileIdentity, b: FileIdentity): boolean => a.dev === b.dev && a.ino === b.ino;

/** Refuses what `stats` (from lstat, or stat when links are followed) says is not a regular file. */
export function checkRegular(path: string, stats: Stats, options: RegularFileOptions = {}): void {
  if (stats.isSymbolicLink()) throw refuse(options, path, LINK);
  if (!stats.isFile()) throw refuse(options, path, NOT_REGULAR);
}

/** The file's identity, for RegularFileOptions.expect. */
export function identityOf(stats: Stats): FileIdentity {
  return { dev: stats.dev, ino: stats.ino };
}

/**
 * Opens a regular file for reading (see above); its descriptor and fstat. Errors of the file
 * system itself (ENOENT, EACCES) are thrown as they are; a refusal is an AppError.
 */
export function openRegularFile(path: string, options: RegularFileOptions = {}): { fd: number; stats: Stats } {
  const follow = options.followLinks === true;
  const seen = follow ? statSync(path) : lstatSync(path);
  checkRegular(path, seen, options);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
  } catch (e) {
    // A link put in its place since the lstat (O_NOFOLLOW says ELOOP).
    if ((e as NodeJS.ErrnoException).code === 'ELOOP' && !follow) throw refuse(options, path, LINK);
    throw e;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refuse(options, path, NOT_REGULAR);
    if (!sameFile(stats, seen) || (options.expect && !sameFile(stats, options.expect))) throw refuse(options, path, CHANGED);
    return { fd, stats };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}
