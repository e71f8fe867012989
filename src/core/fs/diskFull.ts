// A full disk, said the same way by every writer (import, export, generation, backup, app state):
// which file could not be written, about how much it needed and how much is free, so the user knows
// what to free or where else to write. A sentence of its own: callers print it on a line of its own.
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppError } from '../../shared/errors';

/** What one app-state transaction may add to its WAL before it is checkpointed: a few pages, rounded up. */
export const APP_STATE_WRITE_BYTES = 64 * 1024;

/** Below this much free space, an I/O error from SQLite is taken for a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * ENOSPC / EDQUOT from Node, SQLITE_FULL from SQLite (better-sqlite3 puts it in `code`). SQLite
 * reports some writes that found no room as an I/O error instead (growing the WAL's shared-memory
 * file: SQLITE_IOERR_SHMSIZE); given the file's path, such an error on a nearly full disk counts too.
 */
export function isDiskFull(e: unknown, path?: string): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') return true;
  if (path === undefined || typeof code !== 'string' || !code.startsWith('SQLITE_IOERR')) return false;
  const free = freeBytes(path);
  return free !== null && free < NEARLY_FULL_BYTES;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** Bytes free for this user on the disk holding `path` (its folder), or null when it cannot be told. */
export function freeBytes(path: string): number | null {
  try {
    const s = statfsSync(dirname(path));
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

/**
 * The error for a write that ran out of space: `needed` is the writer's estimate of the whole file
 * (written so far plus what was left to write).
 */
export function diskFullError(file: string, needed: number): AppError {
  const free = freeBytes(file);
  const room = free === null ? '' : ` and ${formatBytes(free)} is free there`;
  return new AppError(
    'unavailable',
    `The disk is full: ${file} could not be written. It needs about ${formatBytes(Math.max(needed, 1))}${room}; ` +
      'free some space or write somewhere else, then try again. Nothing was changed.',
  );
}

/** Rethrows a full-disk failure as diskFullError; anything else as it was. */
export function rethrowDiskFull(e: unknown, file: string, needed: () => number): never {
  if (isDiskFull(e)) throw diskFullError(file, needed());
  throw e;
}
