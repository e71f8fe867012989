// App-state schema changes, forward only, applied in order. An applied list that is not a prefix of
// this one means the file was written by a newer or different build: it is refused, not guessed at.
export interface Migration {
  id: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: '0001_api_keys',
    sql: `CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      prefix TEXT NOT NULL,
      hash BLOB NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      last_used_at TEXT,
      revoked_at TEXT
    );`,
  },
  {
    id: '0002_saved_audiences',
    sql: `CREATE TABLE saved_audiences (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      state TEXT NOT NULL,
      filters TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );`,
  },
  {
    id: '0003_audit_log',
    sql: `CREATE TABLE audit_log (
      id INTEGER PRIMARY KEY,
      at TEXT NOT NULL,
      actor TEXT NOT NULL,
      action TEXT NOT NULL,
      audience TEXT NOT NULL,
      records INTEGER NOT NULL,
      file TEXT NOT NULL,
      outcome TEXT NOT NULL
    );`,
  },
  {
    id: '0004_settings',
    sql: `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;`,
  },
];
