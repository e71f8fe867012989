// The app-state database (keys, saved audiences, audit log, settings), kept apart from the dataset
// so a dataset can be replaced without losing any of it. WAL with full sync: every change is a
// transaction that survives a crash or kill -9. Its files hold key hashes and the audit trail:
// readable by their owner only, whatever the umask.
import { ensurePrivateDatabaseFile, makePrivateDir } from '../fs/privateFile';
import { homeLayout } from './homeLayout';
import { openSqlite, type Db } from '../sqlite';
import { MIGRATIONS } from './migrations';

/**
 * Brings app state (or a backup's copy of it) up to this build's migrations; a newer one is refused.
 * `through` stops after that many: backupSchema.ts builds each older version's exact schema with it.
 */
export function migrate(db: Db, through = MIGRATIONS.length): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = db.prepare('SELECT id FROM migrations ORDER BY id').pluck().all() as string[];
  applied.forEach((id, i) => {
    if (MIGRATIONS[i]?.id !== id)
      throw new Error(`App state was written by a different version of Audience Desk (migration ${id} is unknown to this one).`);
  });
  const record = db.prepare('INSERT INTO migrations (id, applied_at) VALUES (?, ?)');
  for (const m of MIGRATIONS.slice(applied.length, Math.max(applied.length, through))) {
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.id, new Date().toISOString());
    })();
  }
}

export function openAppState(homeDir: string): Db {
  makePrivateDir(homeDir);
  const path = homeLayout(homeDir).appState;
  // Created (or repaired) as 0600 before SQLite opens it: SQLite gives its -wal and -shm files the
  // database file's own permissions.
  ensurePrivateDatabaseFile(path);
  const db = openSqlite(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}
