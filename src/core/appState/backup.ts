// App-state backups: one SQLite file holding a consistent copy of app state (keys as their hashes,
// saved audiences, suppression lists with the home's list secret, the audit log and export history,
// settings), plus a `backup_info` table that marks it as ours. Taken with `VACUUM INTO` on the live
// connection (a snapshot of one read transaction, compact, no WAL) into a file created owner-only
// before its first byte (src/core/fs/privateFile.ts), under a temporary name, synced and renamed into place:
// a backup file is whole or absent, and no other user can read it at any moment. Restoring one is
// restore.ts. Why SQLite rather than JSON or tar: the snapshot is exact (blobs, types), taken without
// stopping the app, checkable with integrity_check, and any sqlite3 shell can read it. SECURITY.md: "Backups".
import { closeSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { BackupInfo } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { partialPathFor, publishFile, randomTag } from '../fs/atomicFile';
import { diskFullError, isDiskFull } from '../fs/diskFull';
import { fileStamp } from '../fs/fileStamp';
import { openSqlite, type Db } from '../sqlite';
import { BACKUP_FORMAT, BACKUP_VERSION } from './backupCheck';
import { BACKUP_INFO_SQL } from './backupSchema';
import { createPrivateFile } from '../fs/privateFile';

export { BACKUP_FORMAT, BACKUP_VERSION };
/** The folder of the app's own backups (backup/create writes there; backup/preview and backup/restore name a file in it). */
export const BACKUPS_DIR = 'backups';

export function backupsDir(homeDir: string): string {
  return join(homeDir, BACKUPS_DIR);
}

/** audience-desk-backup-20261125-120000.sqlite: sorts by time. */
export function newBackupName(now = new Date()): string {
  return `audience-desk-backup-${fileStamp(now)}.sqlite`;
}

function appStateBytes(db: Db): number {
  return Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
}

/** Writes a backup of the live app state to `out` (atomically, owner-only). */
export function createBackup(db: Db, out: string): BackupInfo {
  const target = resolve(out);
  if (existsSync(target) && statSync(target).isDirectory())
    throw new AppError('invalid_request', `${target} is a folder; name a file.`, 'out');
  const partial = partialPathFor(target, randomTag());
  const createdAt = new Date().toISOString();
  try {
    // Owner-only from its first byte (issue 39): SQLite writes into this empty file as it is; its
    // journal below takes the file's own mode.
    closeSync(createPrivateFile(partial));
    db.prepare('VACUUM INTO ?').run(partial);
    const copy = openSqlite(partial);
    try {
      copy.exec(BACKUP_INFO_SQL);
      const put = copy.prepare('INSERT INTO backup_info (key, value) VALUES (?, ?)');
      put.run('format', BACKUP_FORMAT);
      put.run('version', BACKUP_VERSION);
      put.run('created_at', createdAt);
    } finally {
      copy.close();
    }
    publishFile(partial, target);
  } catch (e) {
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
    if (isDiskFull(e)) throw diskFullError(target, appStateBytes(db));
    throw e;
  }
  return { name: basename(target), path: target, bytes: statSync(target).size, createdAt };
}

/** The app's backups in <home>/backups, newest first. */
export function listBackups(homeDir: string): BackupInfo[] {
  const dir = backupsDir(homeDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.sqlite') && !n.startsWith('.'))
    .map((name) => {
      const path = join(dir, name);
      const st = statSync(path);
      return { name, path, bytes: st.size, createdAt: st.mtime.toISOString() };
    })
    .filter((b) => b.bytes > 0)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
}

/** A backup of <home>/backups by its name: any other name (a path, `..`) is refused. */
export function backupInFolder(homeDir: string, name: string): string {
  if (name !== basename(name) || name.startsWith('.') || !name.endsWith('.sqlite'))
    throw new AppError('invalid_request', 'Name a backup from the list.', 'name');
  const path = join(backupsDir(homeDir), name);
  if (!existsSync(path)) throw new AppError('not_found', `There is no backup named ${name}.`, 'name');
  return path;
}
