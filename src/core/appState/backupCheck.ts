// Whether a file is a backup this build restores, decided before anything in it runs: opened
// read-only, with untrusted schema functions off, its sqlite_master read (which runs nothing) and
// compared exactly with what Audience Desk makes for the backup's version (backupSchema.ts); only
// then are its own tables read (backup_info, migrations) and its pages checked. Every refusal is one
// sentence saying why; the caller has changed nothing yet.
import { AppError, isAppError } from '../../shared/errors';
import { openSqlite, type Db } from '../sqlite';
import { expectedSchema, schemaDifference, schemaOf } from './backupSchema';
import { MIGRATIONS } from './migrations';

export const BACKUP_FORMAT = 'audience-desk-app-state-backup';
export const BACKUP_VERSION = '1';

export interface BackupFacts {
  /** How many of this build's migrations the backup's app state has. */
  applied: number;
  createdAt: string | null;
}

const refuse = (message: string): AppError => new AppError('invalid_request', message, 'file');
const notAsMade = (name: string, what: string): AppError =>
  refuse(`${name} holds ${what}; it is not a backup as Audience Desk makes it, so nothing was restored.`);

/** The sentence for what SQLite threw reading the file: not a database at all, or a damaged one. */
function unreadable(e: unknown, name: string): AppError {
  if (isAppError(e)) return e;
  if ((e as { code?: string }).code === 'SQLITE_NOTADB') return refuse(`${name} is not an Audience Desk backup (it is not a SQLite file).`);
  return refuse(`${name} is damaged and cannot be restored (${(e as Error).message}).`);
}

function checkPages(db: Db, name: string): void {
  const check = String(db.pragma('integrity_check', { simple: true }));
  if (check !== 'ok') {
    const detail = check
      .replace(/\*\*\* in database main \*\*\*/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 120);
    throw refuse(`${name} is damaged and cannot be restored (integrity check: ${detail}).`);
  }
  // The swap checks these at commit; said here, before anything is shown or asked, in words.
  if ((db.pragma('foreign_key_check') as unknown[]).length > 0)
    throw refuse(`${name} is damaged and cannot be restored (its lists or export history point at rows it does not hold).`);
}

/** Refuses anything that is not an intact backup of ours that this build can read, exactly as Audience Desk makes it. */
export function inspectBackup(file: string, name: string): BackupFacts {
  let db: Db;
  try {
    db = openSqlite(file, { readonly: true, fileMustExist: true });
  } catch {
    throw refuse(`${name} cannot be opened; it is not an Audience Desk backup.`);
  }
  try {
    return inspect(db, name);
  } catch (e) {
    throw unreadable(e, name);
  } finally {
    db.close();
  }
}

/** inspectBackup's checks, in the order that runs nothing of the file's before its schema is known to be ours. */
function inspect(db: Db, name: string): BackupFacts {
  // Defence in depth: should anything of the file's schema ever be evaluated, it may call no function with side effects.
  db.pragma('trusted_schema = OFF');
  const schema = schemaOf(db);
  const info = schema.get('table backup_info');
  const infoSql = expectedSchema(0).get('table backup_info')!.sql;
  if (!info || info.sql !== infoSql) throw refuse(`${name} is not an Audience Desk backup.`);
  // Both tables are exactly ours (checked just above and below): reading them runs nothing of the file's.
  const values = new Map(db.prepare('SELECT key, value FROM backup_info').raw().all() as Array<[unknown, unknown]>);
  if (values.get('format') !== BACKUP_FORMAT) throw refuse(`${name} is not an Audience Desk backup.`);
  if (values.get('version') !== BACKUP_VERSION)
    throw refuse(`${name} was made by a newer or different version of Audience Desk; update the app to restore it.`);
  const migrations = schema.get('table migrations');
  if (!migrations || migrations.sql !== expectedSchema(0).get('table migrations')!.sql)
    throw notAsMade(name, migrations ? 'a table migrations defined otherwise than Audience Desk defines it' : 'no table migrations');
  const applied = db.prepare('SELECT id FROM migrations ORDER BY id').pluck().all();
  if (applied.length > MIGRATIONS.length || applied.some((id, i) => MIGRATIONS[i]!.id !== id))
    throw refuse(`${name} was made by a newer or different version of Audience Desk; update the app to restore it.`);
  const difference = schemaDifference(schema, applied.length);
  if (difference) throw notAsMade(name, difference);
  // App state is UTF-8; a copy in another encoding could not even be attached for the swap.
  if (db.pragma('encoding', { simple: true }) !== 'UTF-8') throw notAsMade(name, 'text in an encoding other than UTF-8');
  checkPages(db, name);
  const createdAt = values.get('created_at');
  return { applied: applied.length, createdAt: typeof createdAt === 'string' ? createdAt : null };
}
