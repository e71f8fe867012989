// Restoring a backup (issue 39: a crafted backup must not be trusted whole). The file is copied byte
// for byte into the home folder (0700), owner-only, so nobody can change it between its check and
// its use; the copy's schema is checked exactly before anything runs on it (backupCheck.ts); only
// then is an older copy brought up to this build's migrations (it holds no trigger, view or object of
// its own that they could set off) and read for what it would bring (restorePreview.ts). Nothing
// has changed until apply(), which replaces every app-state table in ONE transaction on the live
// connection: a kill -9 leaves the old state or the new one, whole, and a running app or server
// sees the restored keys on its next request.
import { existsSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { RestorePreview, RestoreSummary } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { randomTag } from '../fs/atomicFile';
import { diskFullError, isDiskFull } from '../fs/diskFull';
import { escapeRegExp, removeStaleFiles } from '../fs/staleFiles';
import { openSqlite, type Db } from '../sqlite';
import { migrate } from './appStateDb';
import { inspectBackup } from './backupCheck';
import { MIGRATIONS } from './migrations';
import { copyToPrivateFile } from '../fs/privateFile';
import { readPreview } from './restorePreview';

/** Tables a restore leaves as they are: the dataset history describes files in this home, not the backup's. */
const NOT_RESTORED = new Set(['migrations', 'datasets']);

const appStateBytes = (db: Db): number =>
  Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));

/** A backup copied, checked and brought up to this build, with what it would bring; discard() it whatever happens. */
export class StagedRestore {
  constructor(
    private readonly db: Db,
    private readonly staging: string,
    readonly preview: RestorePreview,
    private readonly onApplied: () => void,
  ) {}

  /** Replaces the live app state with the staged backup's, in one transaction. */
  apply(): RestoreSummary {
    const summary = swapTables(this.db, this.staging);
    this.onApplied();
    return summary;
  }

  discard(): void {
    removeStaging(this.staging);
  }
}

function removeStaging(staging: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(staging + suffix, { force: true });
}

/** Stages `file` for a restore into the app state behind `db` (a live connection of the home `homeDir`). */
export function stageRestore(db: Db, homeDir: string, file: string, onApplied: () => void = () => undefined): StagedRestore {
  const source = resolve(file);
  const name = basename(source);
  if (!existsSync(source) || !statSync(source).isFile()) throw new AppError('not_found', `There is no backup file at ${source}.`, 'file');
  // A restore killed with -9 leaves its staging copy: the next one removes those of dead processes.
  removeStaleFiles(homeDir, new RegExp(`^${escapeRegExp('.restore-')}(\\d+)-[0-9a-f]+\\.sqlite(-journal|-wal|-shm)?$`));
  const staging = join(homeDir, `.restore-${process.pid}-${randomTag()}.sqlite`);
  try {
    let fingerprint: string;
    try {
      fingerprint = copyToPrivateFile(source, staging);
    } catch (e) {
      if (isDiskFull(e)) throw diskFullError(staging, statSync(source).size);
      throw e;
    }
    const facts = inspectBackup(staging, name);
    if (facts.applied < MIGRATIONS.length) {
      const copy = openSqlite(staging);
      try {
        copy.pragma('trusted_schema = OFF');
        migrate(copy);
      } catch (e) {
        if (isDiskFull(e)) throw diskFullError(staging, statSync(source).size);
        throw e;
      } finally {
        copy.close();
      }
    }
    return new StagedRestore(db, staging, readPreview(db, staging, { name, fingerprint, createdAt: facts.createdAt }), onApplied);
  } catch (e) {
    removeStaging(staging);
    throw e;
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
