// The only place that loads better-sqlite3, after the runtime check above has passed.
import './runtime';
import Database from 'better-sqlite3';

export type Db = Database.Database;
export type Statement = Database.Statement;

export function openSqlite(path: string, options: Database.Options = {}): Db {
  return new Database(path, options);
}
