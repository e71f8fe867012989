// The format is a contract (docs/dataset-format.md): a format 6 file records its version, order and
// checksums; a format 5 file (always in PID order), a format 4 file (each vector one frame) and a
// format 3 file (one row a record, raw vectors, no checksums) still open and read exactly the same
// records and vectors as a format 6 file in PID order; another format, a foreign SQLite file and a
// file that is not SQLite are refused in one sentence naming the file.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constants, zstdCompressSync } from 'node:zlib';
import { RECORD_LEVEL, RECORDS_PER_BLOCK, tablesChecksum, vectorCrc } from '../../../src/core/dataset/codec/blockCodec';
import { vectorToBlob } from '../../../src/core/dataset/codec/columnVector';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { openDatasetSql, peopleViewSql } from '../../support/datasetSql';
import { DATASET_FORMAT_VERSION } from '../../../src/core/dataset/format/schema';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { ChunkLayout } from '../../../src/core/dataset/codec/vectorChunks';
import { generateDataset, generateRecords } from '../../../src/core/generate';
import { copyWithMeta } from '../../support/datasetMeta';
import { openSqlite } from '../../../src/core/sqlite';
import { normalizeAudienceRequest } from '../../../src/shared/audienceRequest';
import { FIELDS } from '../../../src/shared/fields';

let dir: string;
/** Generated: format 6 in household order. */
let v6: string;
/** The same records written in PID order (format 6), and the older formats made from it. */
let v6InPidOrder: string;
let v5: string;
let v4: string;
let v3: string;

/** Format 4, as that version wrote it: a copy of `from` whose vectors are each one zstd frame in `columns`. */
function writeFormat4(from: Dataset, source: string, path: string): void {
  copyFileSync(source, path);
  const db = openSqlite(path);
  db.exec('BEGIN');
  const headers = db.prepare('SELECT name, encoding, kind, length, dict FROM columns').all() as Array<{
    name: string;
    encoding: string;
    kind: string;
    length: number;
    dict: string | null;
  }>;
  db.exec('DROP TABLE columns; DROP TABLE vector_chunks');
  db.exec(`CREATE TABLE columns (name TEXT PRIMARY KEY, encoding TEXT NOT NULL, kind TEXT NOT NULL, length INTEGER NOT NULL,
    dict TEXT, crc INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID`);
  const put = db.prepare('INSERT INTO columns (name, encoding, kind, length, dict, crc, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const h of headers) {
    const values = from.column(
      FIELDS.findIndex((f) => f.name === h.name),
      'all',
    ).data;
    const data = zstdCompressSync(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), {
      params: { [constants.ZSTD_c_compressionLevel]: 9 },
    });
    put.run(h.name, h.encoding, h.kind, h.length, h.dict, vectorCrc(h.name, h.encoding, h.kind, h.length, h.dict, data), data);
  }
  const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as Array<[string, string]>);
  delete meta.vector_chunk;
  meta.format_version = '4';
  meta.checksum = tablesChecksum(meta, from.stateCounts());
  db.exec('DELETE FROM meta');
  const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  for (const [k, v] of Object.entries(meta)) putMeta.run(k, v);
  db.exec('COMMIT');
  db.close();
}

/** Format 3's tables, as that version wrote them, holding the same records and vectors as `from`. */
function writeFormat3(from: Dataset, path: string): void {
  const db = openSqlite(path);
  db.exec(`
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE records (_pos INTEGER PRIMARY KEY, record TEXT NOT NULL);
    CREATE TABLE states (state TEXT PRIMARY KEY, first INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE columns (name TEXT PRIMARY KEY, encoding TEXT NOT NULL, kind TEXT NOT NULL, dict TEXT, data BLOB NOT NULL) WITHOUT ROWID;
  `);
  db.exec(peopleViewSql('main'));
  db.exec('BEGIN');
  const texts = from.recordTexts(Uint32Array.from({ length: from.records }, (_, k) => k));
  const put = db.prepare('INSERT INTO records (_pos, record) VALUES (?, ?)');
  texts.forEach((t, k) => put.run(k, t));
  const kinds = new Map<unknown, string>([
    [Uint8Array, 'u8'],
    [Uint16Array, 'u16'],
    [Uint32Array, 'u32'],
    [Int32Array, 'i32'],
    [Float64Array, 'f64'],
  ]);
  const putColumn = db.prepare('INSERT INTO columns (name, encoding, kind, dict, data) VALUES (?, ?, ?, ?, ?)');
  FIELDS.forEach((f, i) => {
    if (f.type === 'number') return;
    const c = from.column(i, 'all');
    putColumn.run(f.name, c.encoding, kinds.get(c.data.constructor), c.dict ? JSON.stringify(c.dict) : null, vectorToBlob(c.data));
  });
  const putState = db.prepare('INSERT INTO states (state, first, count) VALUES (?, ?, ?)');
  for (const r of from.stateCounts()) putState.run(r.state, r.first, r.count);
  const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  for (const [k, v] of Object.entries({ ...from.meta, format_version: '3' }))
    if (k !== 'checksum' && k !== 'block_records') putMeta.run(k, v);
  db.exec('COMMIT');
  db.close();
}

const ROWS = 2000;
// Several vector chunks, the last a short one.
const CHUNK = 512;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-formats-'));
  v6 = join(dir, 'v6.sqlite');
  v6InPidOrder = join(dir, 'v6-pid.sqlite');
  v5 = join(dir, 'v5.sqlite');
  v4 = join(dir, 'v4.sqlite');
  v3 = join(dir, 'v3.sqlite');
  generateDataset({ rows: ROWS, seed: 3, out: v6, vectorChunk: CHUNK });
  const writer = new DatasetWriter(v6InPidOrder, {}, undefined, new ChunkLayout(CHUNK));
  for (const record of generateRecords(ROWS, 3)) writer.append(record);
  writer.finish();
  // Format 5 was format 6 in PID order without record_order (and without an empty pid_ranks, which no reader looks at).
  copyWithMeta(v6InPidOrder, v5, { format_version: '5', record_order: null });
  const dataset = Dataset.open(v6InPidOrder);
  writeFormat4(dataset, v6InPidOrder, v4);
  writeFormat3(dataset, v3);
  dataset.close();
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dataset formats', () => {
  it('a new file is format 6: blocks of records and chunks of vectors with their checksums, meta checksum, order, block and chunk size', () => {
    const db = openSqlite(v6, { readonly: true });
    try {
      const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as Array<[string, string]>);
      expect(meta.format_version).toBe(DATASET_FORMAT_VERSION);
      expect(DATASET_FORMAT_VERSION).toBe('6');
      expect(meta.record_order).toBe('ranked');
      expect(db.prepare('SELECT count(*) FROM pid_ranks').pluck().get()).toBe(Math.ceil(ROWS / CHUNK));
      expect(meta.block_records).toBe(String(RECORDS_PER_BLOCK));
      expect(meta.record_level).toBe(String(RECORD_LEVEL));
      expect(db.pragma('page_size', { simple: true })).toBe(2048);
      expect(meta.vector_chunk).toBe(String(CHUNK));
      // A vector for every field: the filterable ones, and LATITUDE and LONGITUDE (for `near`) since 27 November 2026.
      expect(db.prepare('SELECT count(*) FROM columns').pluck().get()).toBe(FIELDS.length);
      expect(db.prepare('SELECT count(*) FROM vector_chunks').pluck().get()).toBe(FIELDS.length * Math.ceil(ROWS / CHUNK));
      expect(meta.checksum).toMatch(/^\d+$/);
      expect(db.prepare('SELECT count(*) FROM record_blocks').pluck().get()).toBe(Math.ceil(ROWS / RECORDS_PER_BLOCK));
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('records', 'people')").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });

  it.each([
    ['5', () => v5],
    ['4', () => v4],
    ['3', () => v3],
  ])('a format %s file opens and reads the same records, previews, vectors and answers as format 6 in PID order', (version, path) => {
    const a = Dataset.open(v6InPidOrder);
    const b = Dataset.open(path());
    try {
      expect(b.formatVersion).toBe(version);
      expect(b.records).toBe(a.records);
      const all = Uint32Array.from({ length: ROWS }, (_, k) => k);
      const scattered = Uint32Array.from([0, 5, 31, 32, 33, 700, 701, 1500, ROWS - 1]);
      expect(b.recordTexts(all)).toEqual(a.recordTexts(all));
      expect(b.recordBytes(scattered).map((x) => Buffer.from(x).toString())).toEqual(
        a.recordBytes(scattered).map((x) => Buffer.from(x).toString()),
      );
      expect(b.previewRows(scattered)).toEqual(a.previewRows(scattered));
      expect([...b.rangeValues(100, 900, [0, 3])]).toEqual([...a.rangeValues(100, 900, [0, 3])]);
      FIELDS.forEach((f, i) => {
        if (f.type === 'number') return;
        expect(b.column(i, 'all')).toEqual(a.column(i, 'all'));
      });
      const engines = [a, b].map((d) => new EmbeddedEngine(d, { backgroundVerify: false }));
      const audience = normalizeAudienceRequest({
        state: 'CA',
        filters: [
          ['GENDER', ['F']],
          ['AGE', ['25-64']],
        ],
      });
      const pages = engines.map((e) => {
        const page = e.recordPage(audience, 3, 40);
        return { total: page.total, records: page.records.map((r) => r.toString()) };
      });
      expect(pages[0]!.records).toHaveLength(40);
      expect(pages[1]).toEqual(pages[0]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('a file written at a higher zstd level (as the bundled sample is) is smaller and reads the same records', () => {
    const high = join(dir, 'level15.sqlite');
    generateDataset({ rows: ROWS, seed: 3, out: high, vectorChunk: CHUNK, recordLevel: 15 });
    const [a, b] = [Dataset.open(v6), Dataset.open(high)];
    try {
      expect(b.meta.record_level).toBe('15');
      const all = Uint32Array.from({ length: ROWS }, (_, k) => k);
      expect(b.recordTexts(all)).toEqual(a.recordTexts(all));
      const blockBytes = (path: string) => {
        const db = openSqlite(path, { readonly: true });
        const n = db.prepare('SELECT sum(length(data)) FROM record_blocks').pluck().get() as number;
        db.close();
        return n;
      };
      expect(blockBytes(high)).toBeLessThan(blockBytes(v6) * 0.95);
    } finally {
      a.close();
      b.close();
    }
  });

  it('ad-hoc SQL sees the same `people` in every format', () => {
    const rows = [v6InPidOrder, v5, v4, v3].map((path) => {
      const db = openDatasetSql(path);
      try {
        return db.prepare('SELECT _pos, PID, STATE, AGE, LATITUDE FROM people ORDER BY _pos').raw().all();
      } finally {
        db.close();
      }
    });
    expect(rows[0]).toHaveLength(ROWS);
    expect(rows[1]).toEqual(rows[0]);
    expect(rows[2]).toEqual(rows[0]);
    expect(rows[3]).toEqual(rows[0]);
  });

  it('refuses another format, a SQLite file that is not a dataset and a file that is not SQLite, in one sentence naming the file', () => {
    const v9 = join(dir, 'v9.sqlite');
    copyFileSync(v3, v9);
    const db = openSqlite(v9);
    db.prepare("UPDATE meta SET value = '9' WHERE key = 'format_version'").run();
    db.close();
    expect(() => Dataset.open(v9)).toThrow(`The dataset file ${v9} has format 9; this version of Audience Desk reads formats 3, 4, 5, 6.`);
    const foreign = join(dir, 'foreign.sqlite');
    const other = openSqlite(foreign);
    other.exec('CREATE TABLE t (x)');
    other.close();
    expect(() => Dataset.open(foreign)).toThrow(`The file ${foreign} is not an Audience Desk dataset.`);
    const text = join(dir, 'text.sqlite');
    writeFileSync(text, 'PID,FNAME\n1,A\n');
    expect(() => Dataset.open(text)).toThrow(`The file ${text} is not an Audience Desk dataset (it is not a SQLite database).`);
  });
});
