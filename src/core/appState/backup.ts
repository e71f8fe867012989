// App-state backups: one SQLite file holding a consistent copy of app state (keys as their hashes,
// saved audiences, suppression lists with the home's list secret, the audit log and export history,
// settings), plus a `backup_info` table that marks it as ours. Taken with `VACUUM INTO` on the live
// connection (a snapshot of one read transaction, compact, no WAL), under a temporary name, synced
// and renamed into place: a backup file is whole or absent. Restore checks the file (SQLite, intact,
// ours, not from a newer build), brings a copy up to this build's migrations, and replaces every
// app-state table in ONE transaction on the live connection: a kill -9 leaves the old state or the
// new one, whole, and a running app or server sees the restored keys on its next request.
// Why SQLite rather than JSON or tar: the snapshot is exact (blobs, types), taken without stopping the
// app, checkable with integrity_check, and any sqlite3 shell can read it. SECURITY.md: "Backups".
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { BackupInfo, RestoreSummary } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { partialPathFor, publishFile, randomTag } from '../fs/atomicFile';
import { diskFullError, isDiskFull } from '../fs/diskFull';
import { fileStamp } from '../fs/fileStamp';
import { escapeRegExp, removeStaleFiles } from '../fs/staleFiles';
import { openSqlite, type Db } from '../sqlite';
import { migrate } from './appStateDb';
import { MIGRATIONS } from './migrations';

export const BACKUP_FORMAT = 'audience-desk-app-state-backup';
export const BACKUP_VERSION = '1';
/** The folder of the app's own backups (backup/create writes there; backup/restore names a file in it). */
export const BACKUPS_DIR = 'backups';
/** Tables a restore leaves as they are: the dataset history describes files in this home, not the backup's. */
const NOT_RESTORED = new Set(['migrations', 'datasets']);

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
    db.prepare('VACUUM INTO ?').run(partial);
    chmodSync(partial, 0o600);
    const copy = openSqlite(partial);
    try {
      copy.exec('CREATE TABLE backup_info (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
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

/** Refuses anything that is not an intact backup of ours that this build can read, with a sentence saying why. */
function checkBackup(file: string): void {
  const name = basename(file);
  if (!existsSync(file) || !statSync(file).isFile()) throw new AppError('not_found', `There is no backup file at ${file}.`, 'file');
  let db: Db;
  try {
    db = openSqlite(file, { readonly: true, fileMustExist: true });
  } catch {
    throw new AppError('invalid_request', `${name} cannot be opened; it is not an Audience Desk backup.`, 'file');
  }
  try {
    let check: string;
    try {
      check = String(db.pragma('integrity_check', { simple: true }));
    } catch (e) {
      const code = (e as { code?: string }).code;
      throw new AppError(
        'invalid_request',
        code === 'SQLITE_NOTADB'
          ? `${name} is not an Audience Desk backup (it is not a SQLite file).`
          : `${name} is damaged and cannot be restored (${(e as Error).message}).`,
        'file',
      );
    }
    if (check !== 'ok') {
      const detail = check
        .replace(/\*\*\* in database main \*\*\*/g, '')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 120);
      throw new AppError('invalid_request', `${name} is damaged and cannot be restored (integrity check: ${detail}).`, 'file');
    }
    const hasInfo = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'backup_info'").get();
    const format = hasInfo
      ? (db.prepare("SELECT value FROM backup_info WHERE key = 'format'").pluck().get() as string | undefined)
      : undefined;
    if (format !== BACKUP_FORMAT) throw new AppError('invalid_request', `${name} is not an Audience Desk backup.`, 'file');
    const hasMigrations = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get();
    const applied = hasMigrations ? (db.prepare('SELECT id FROM migrations ORDER BY id').pluck().all() as string[]) : [];
    if (applied.some((id, i) => MIGRATIONS[i]?.id !== id))
      throw new AppError(
        'invalid_request',
        `${name} was made by a newer or different version of Audience Desk; update the app to restore it.`,
        'file',
      );
  } finally {
    db.close();
  }
}

/**
 * Replaces the app state behind `db` (a live connection of the home `homeDir`) with the backup's.
 * The backup is copied next to app state and migrated there first, so an older backup restores into
 * this build's tables; then one transaction swaps every table's rows.
 */
export function restoreBackup(db: Db, homeDir: string, file: string): RestoreSummary {
  const source = resolve(file);
  checkBackup(source);
  const staging = join(homeDir, `.restore-${process.pid}-${randomTag()}.sqlite`);
  // A restore killed with -9 leaves its staging copy: the next one removes those of dead processes.
  removeStaleFiles(homeDir, new RegExp(`^${escapeRegExp('.restore-')}(\\d+)-[0-9a-f]+\\.sqlite(-journal|-wal|-shm)?$`));
  try {
    try {
      const src = openSqlite(source, { readonly: true, fileMustExist: true });
      try {
        src.prepare('VACUUM INTO ?').run(staging);
      } finally {
        src.close();
      }
      chmodSync(staging, 0o600);
      const copy = openSqlite(staging);
      try {
        migrate(copy);
      } finally {
        copy.close();
      }
    } catch (e) {
      if (isDiskFull(e)) throw diskFullError(staging, statSync(source).size);
      throw e;
    }
    return swapTables(db, staging);
  } finally {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(staging + suffix, { force: true });
  }
}

function swapTables(db: Db, staging: string): RestoreSummary {
  const tables = (
    db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]
  ).filter((t) => !NOT_RESTORED.has(t));
  db.prepare('ATTACH DATABASE ? AS backup').run(staging);
  try {
    const inBackup = new Set(db.prepare("SELECT name FROM backup.sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
    db.transaction(() => {
      // Lists' values point at lists, export history at audit entries: checked once, at commit.
      db.pragma('defer_foreign_keys = ON');
      for (const t of tables) {
        db.exec(`DELETE FROM main.${quote(t)}`);
        if (!inBackup.has(t)) continue;
        const columns = (db.prepare(`SELECT name FROM pragma_table_info(?, 'main')`).pluck().all(t) as string[]).map(quote).join(', ');
        db.exec(`INSERT INTO main.${quote(t)} (${columns}) SELECT ${columns} FROM backup.${quote(t)}`);
      }
    })();
  } catch (e) {
    if (isDiskFull(e)) throw diskFullError(join(staging, '..', 'app-state.sqlite'), appStateBytes(db) * 2);
    throw e;
  } finally {
    db.exec('DETACH DATABASE backup');
  }
  const count = (table: string): number => Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
  return {
    keys: count('api_keys'),
    savedAudiences: count('saved_audiences'),
    lists: count('suppression_lists'),
    auditEntries: count('audit_log'),
    settings: count('settings'),
  };
}
