// Ad-hoc SQL over a dataset file: a read-only connection where `records` (_pos, record: the JSON
// text) and `people` (every field as a typed column, as format 3 had them) exist, whatever the
// file's format. Formats 4 and 5 keep records compressed, which SQLite cannot read, so they are
// decompressed once into temporary tables of this connection (memory and time grow with the
// dataset: a tool for tests and inspection, not for the engine, which reads through Dataset).
import { openSqlite, type Db } from '../sqlite';
import { Dataset } from './dataset';
import { LEGACY_FORMAT_VERSION, PEOPLE_VIEW_SQL } from './schema';

export function openDatasetSql(path: string): Db {
  const dataset = Dataset.open(path);
  const db = openSqlite(path, { readonly: true, fileMustExist: true });
  try {
    if (dataset.formatVersion === LEGACY_FORMAT_VERSION) return db;
    db.exec('CREATE TEMP TABLE records (_pos INTEGER PRIMARY KEY, record TEXT NOT NULL)');
    db.exec(PEOPLE_VIEW_SQL('temp'));
    const insert = db.prepare('INSERT INTO temp.records (_pos, record) VALUES (?, ?)');
    db.exec('BEGIN');
    const CHUNK = 4096;
    for (let from = 0; from < dataset.records; from += CHUNK) {
      const n = Math.min(CHUNK, dataset.records - from);
      const texts = dataset.recordTexts(Uint32Array.from({ length: n }, (_, k) => from + k));
      for (let k = 0; k < n; k++) insert.run(from + k, texts[k]);
    }
    db.exec('COMMIT');
    return db;
  } catch (e) {
    db.close();
    throw e;
  } finally {
    dataset.close();
  }
}
