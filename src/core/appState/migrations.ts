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
  {
    // A saved audience keeps its list controls (extensions.md) as the request keys, '{}' for none.
    id: '0005_saved_audience_controls',
    sql: `ALTER TABLE saved_audiences ADD COLUMN controls TEXT NOT NULL DEFAULT '{}';`,
  },
  {
    // Suppression lists (src/core/lists): a keyed hash of each value, never the value; the key is
    // the home's secret, made on first use. A list's rejects are line numbers and reasons only.
    id: '0006_suppression_lists',
    sql: `CREATE TABLE list_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL);
    CREATE TABLE suppression_lists (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created_at TEXT NOT NULL,
      rows INTEGER NOT NULL,
      pids INTEGER NOT NULL,
      phones INTEGER NOT NULL,
      addresses INTEGER NOT NULL,
      rejected INTEGER NOT NULL,
      rejects TEXT NOT NULL
    );
    CREATE TABLE suppression_values (
      list_id TEXT NOT NULL REFERENCES suppression_lists (id),
      hash BLOB NOT NULL,
      PRIMARY KEY (list_id, hash)
    ) WITHOUT ROWID;`,
  },
  {
    // Whom each finished export wrote: its PIDs, 16 bytes each, ascending, under its audit entry.
    id: '0007_export_people',
    sql: `CREATE TABLE export_people (
      audit_id INTEGER PRIMARY KEY REFERENCES audit_log (id),
      people INTEGER NOT NULL,
      pids BLOB NOT NULL
    );`,
  },
  {
    // Dataset history (src/core/datasets): every dataset the app opened or imported, so the user can
    // switch back; saved audiences and audit entries name the dataset they were made on (a JSON
    // DatasetRef, null for those made before this).
    id: '0008_dataset_history',
    sql: `CREATE TABLE datasets (
      path TEXT PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      records INTEGER NOT NULL,
      created_at TEXT,
      sources TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      added_at TEXT NOT NULL,
      active_at TEXT
    );
    ALTER TABLE saved_audiences ADD COLUMN dataset TEXT;
    ALTER TABLE audit_log ADD COLUMN dataset TEXT;`,
  },
  {
    // A suppression list's list keys (the 32-bit hashes datasets keep of each record's normalised
    // values, dataset/format/listKeys.ts), sealed with the home's list secret (listHash.ts): matching reads
    // only the records they point to. Null for a list imported before: it reads every record.
    id: '0009_list_key_hashes',
    sql: `ALTER TABLE suppression_lists ADD COLUMN key_hashes BLOB;`,
  },
  {
    // Consumer opt-outs (src/core/optouts): each import's counts (its audit: when, rows, matched) and
    // a keyed hash of each value, as suppression lists keep them; a removed import keeps its row.
    id: '0010_consumer_optouts',
    sql: `CREATE TABLE optout_imports (
      id TEXT PRIMARY KEY,
      created_at TEXT NOT NULL,
      rows INTEGER NOT NULL,
      pids INTEGER NOT NULL,
      phones INTEGER NOT NULL,
      people INTEGER NOT NULL,
      rejected INTEGER NOT NULL,
      rejects TEXT NOT NULL,
      matched INTEGER,
      dataset TEXT,
      key_hashes BLOB,
      removed_at TEXT
    );
    CREATE TABLE optout_values (
      import_id TEXT NOT NULL REFERENCES optout_imports (id),
      hash BLOB NOT NULL,
      PRIMARY KEY (import_id, hash)
    ) WITHOUT ROWID;`,
  },
];
