// Ad-hoc SQL over a dataset file for tests, read without the product's own decoder: a read-only
// connection where `records` (_pos, record: the JSON text) and `people` (every field as a typed
// column) exist. Record blocks are decompressed here with node:zlib and cut at their newlines as
// docs/dataset-format.md describes them, so an oracle built on this table checks the product's
// reading of its files instead of repeating it. (Format 3 files hold `records` and `people`
// themselves.) Memory and time grow with the dataset: for test datasets only.
import Database from 'better-sqlite3';
import { zstdDecompressSync } from 'node:zlib';
import { FIELDS } from '../../src/shared/fields';

/** An SQL identifier in double quotes. */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The `people` view over a `records` table of JSON texts (format 3 kept one in its files). */
export const peopleViewSql = (schema: 'main' | 'temp'): string =>
  `CREATE VIEW ${schema}.people AS SELECT _pos, ${FIELDS.map((f, i) => `json_extract(record, '$[${i}]') AS ${quoteIdent(f.name)}`).join(', ')} FROM records`;

export function openDatasetSql(path: string): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const meta = new Map(
      (db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]),
    );
    if (meta.get('format_version') === '3') return db;
    const perBlock = Number(meta.get('block_records'));
    const records = Number(meta.get('records'));
    if (!(perBlock > 0) || !(records >= 0)) throw new Error(`${path}: meta states no block size or record count.`);
    db.exec('CREATE TEMP TABLE records (_pos INTEGER PRIMARY KEY, record TEXT NOT NULL)');
    db.exec(peopleViewSql('temp'));
    const insert = db.prepare('INSERT INTO temp.records (_pos, record) VALUES (?, ?)');
    let expected = 0;
    db.exec('BEGIN');
    // A page of blocks at a time: the connection cannot insert while it iterates.
    const page = db.prepare('SELECT block, data FROM record_blocks WHERE block >= ? ORDER BY block LIMIT 256');
    for (
      let rows = page.all(0) as Array<{ block: number; data: Buffer }>;
      rows.length > 0;
      rows = page.all(rows.at(-1)!.block + 1) as typeof rows
    ) {
      for (const { block, data } of rows) {
        if (block * perBlock !== expected) throw new Error(`${path}: record block ${block} is out of sequence.`);
        const texts = zstdDecompressSync(data).toString('utf8').split('\n');
        if (texts.length !== Math.min(perBlock, records - expected))
          throw new Error(`${path}: record block ${block} holds ${texts.length} records.`);
        for (const text of texts) insert.run(expected++, text);
      }
    }
    db.exec('COMMIT');
    if (expected !== records) throw new Error(`${path}: its blocks hold ${expected} records, its meta says ${records}.`);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}
