// What a backup may hold, exactly (issue 39: a crafted backup was trusted whole). A backup is app
// state at some migration of this build's list plus the `backup_info` table createBackup adds; the
// schema each version has is built here by running the first N migrations on an empty in-memory
// database, so it cannot drift from migrations.ts. A backup whose sqlite_master differs in any object
// (a trigger, a view, an extra table or index, a table defined otherwise) is refused before anything
// runs on it: its triggers never fire, its views are never read. Statements are compared with their
// runs of white space made one, which is how SQLite keeps what the migrations wrote.
import { openSqlite, type Db } from '../sqlite';
import { migrate } from './appStateDb';
import { shownText } from './shownText';

/** The table createBackup adds to the copy: what marks a file as one of our backups. */
export const BACKUP_INFO_SQL = 'CREATE TABLE backup_info (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID';

export interface SchemaObject {
  type: string;
  name: string;
  table: string;
  sql: string | null;
}

const key = (o: { type: string; name: string }): string => `${o.type} ${o.name}`;

/** Every object of a database's schema (sqlite_master: only read, never run), by type and name. */
export function schemaOf(db: Db): Map<string, SchemaObject> {
  const rows = db.prepare('SELECT type, name, tbl_name AS "table", sql FROM main.sqlite_master').all() as SchemaObject[];
  return new Map(rows.map((r) => [key(r), { ...r, sql: typeof r.sql === 'string' ? r.sql.replace(/\s+/g, ' ').trim() : r.sql }]));
}

const byVersion = new Map<number, Map<string, SchemaObject>>();

/** The exact schema of a backup of app state with the first `applied` migrations. */
export function expectedSchema(applied: number): Map<string, SchemaObject> {
  let schema = byVersion.get(applied);
  if (!schema) {
    const db = openSqlite(':memory:');
    try {
      migrate(db, applied);
      db.exec(BACKUP_INFO_SQL);
      schema = schemaOf(db);
    } finally {
      db.close();
    }
    byVersion.set(applied, schema);
  }
  return schema;
}

const ARTICLE: Record<string, string> = { table: 'a table', view: 'a view', trigger: 'a trigger', index: 'an index' };
const kind = (type: string): string => ARTICLE[type] ?? `an object of type ${shownText(type, 20)}`;
// What could run comes first in the sentence: a trigger or a view is the thing to be told about.
const RANK: Record<string, number> = { trigger: 0, view: 1, table: 2, index: 3 };

/** How `actual` differs from the schema of app state at `applied` migrations, as a phrase; null when it is the same. */
export function schemaDifference(actual: Map<string, SchemaObject>, applied: number): string | null {
  const expected = expectedSchema(applied);
  const extras = [...actual.values()].filter((o) => !expected.has(key(o))).sort((a, b) => (RANK[a.type] ?? 4) - (RANK[b.type] ?? 4));
  for (const o of extras) {
    const ours = [...expected.values()].find((e) => e.name === o.name);
    const name = shownText(o.name, 60);
    if (ours) return `${kind(o.type)} named ${name} where Audience Desk keeps ${kind(ours.type)}`;
    return `${kind(o.type)} named ${name}, which Audience Desk never makes`;
  }
  for (const e of expected.values()) {
    const o = actual.get(key(e));
    if (!o) return `no ${e.type} ${e.name}`;
    if (o.table !== e.table || o.sql !== e.sql) return `${kind(e.type)} ${e.name} defined otherwise than Audience Desk defines it`;
  }
  return null;
}
