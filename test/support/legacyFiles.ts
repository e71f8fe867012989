// Dataset files of the formats earlier versions wrote (src/core/dataset/legacy/legacyFormats.ts),
// made from a current file in PID order (or, for format 6, in its writer's order) holding the same
// records: what `cli upgrade` is given. Each is built the way that version wrote it.
import { copyFileSync } from 'node:fs';
import { constants, zstdCompressSync } from 'node:zlib';
import { crc32 } from 'node:zlib';
import { tablesChecksum } from '../../src/core/dataset/codec/blockCodec';
import type { Vector } from '../../src/core/dataset/codec/columnVector';
import { isPacked } from '../../src/core/dataset/codec/packedChunks';
import { ChunkLayout, type VectorHeader } from '../../src/core/dataset/codec/vectorChunks';
import type { Dataset } from '../../src/core/dataset/read/dataset';
import { openSqlite } from '../../src/core/sqlite';
import { FIELDS } from '../../src/shared/fields';
import { copyWithMeta } from './datasetMeta';
import { peopleViewSql } from './datasetSql';

/** Format 4's checksum of a vector: over its field, encoding, kind, length and dictionary, then its one frame. */
function vectorCrc(name: string, encoding: string, kind: string, length: number, dict: string | null, data: Uint8Array): number {
  return crc32(data, crc32(Buffer.from(JSON.stringify([name, encoding, kind, length, dict]), 'utf8')));
}

/** Format 3 stored a vector's raw bytes. */
function vectorToBlob(data: Vector): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Writes every packed vector chunk of the file at `path` again as the zstd frame formats 5 to 7 stored; how many it rewrote. */
export function unpackVectorChunks(path: string): number {
  const db = openSqlite(path);
  const layout = new ChunkLayout(Number(db.prepare("SELECT value FROM meta WHERE key = 'vector_chunk'").pluck().get()));
  const headers = new Map(
    (db.prepare('SELECT name, encoding, kind, length, dict FROM columns').all() as VectorHeader[]).map((h) => [h.name, h]),
  );
  const rows = db.prepare('SELECT name, chunk, crc, data FROM vector_chunks').all() as Array<{
    name: string;
    chunk: number;
    crc: number;
    data: Buffer;
  }>;
  const put = db.prepare('UPDATE vector_chunks SET crc = ?, data = ? WHERE name = ? AND chunk = ?');
  let n = 0;
  db.transaction(() => {
    for (const row of rows) {
      if (!isPacked(row.data)) continue;
      const header = headers.get(row.name)!;
      const values = new Uint8Array(layout.values(row.chunk, header.length));
      layout.decode(path, header, row.chunk, row, values);
      const { data, crc } = layout.encodeValues(row.name, row.chunk, values);
      put.run(crc, data, row.name, row.chunk);
      n++;
    }
  })();
  db.close();
  return n;
}

/** Format 7: the current layout with every vector chunk a zstd frame (none packed). */
export function writeFormat7(source: string, target: string): number {
  copyWithMeta(source, target, { format_version: '7' });
  return unpackVectorChunks(target);
}

/** Format 6: format 7's layout, with coordinate vectors only when `coordinates` (files written before 27 November 2026 had none). */
export function writeFormat6(source: string, target: string, coordinates: boolean): void {
  copyWithMeta(source, target, { format_version: '6' });
  unpackVectorChunks(target);
  if (coordinates) return;
  const db = openSqlite(target);
  db.exec("DELETE FROM columns WHERE name IN ('LATITUDE', 'LONGITUDE'); DELETE FROM vector_chunks WHERE name IN ('LATITUDE', 'LONGITUDE')");
  db.close();
}

/** Format 5: format 6 in PID order without record_order. `source` must be in PID order. */
export function writeFormat5(source: string, target: string): void {
  copyWithMeta(source, target, { format_version: '5', record_order: null });
  unpackVectorChunks(target);
}

/** Format 4, as that version wrote it: a copy of `source` (in PID order; `from` is it open) whose vectors are each one zstd frame in `columns`. */
export function writeFormat4(from: Dataset, source: string, path: string): void {
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
  db.exec('DROP TABLE columns; DROP TABLE vector_chunks; DROP TABLE pid_ranks');
  db.exec(`CREATE TABLE columns (name TEXT PRIMARY KEY, encoding TEXT NOT NULL, kind TEXT NOT NULL, length INTEGER NOT NULL,
    dict TEXT, crc INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID`);
  const put = db.prepare('INSERT INTO columns (name, encoding, kind, length, dict, crc, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const h of headers) {
    if (FIELDS.find((f) => f.name === h.name)?.type === 'number') continue;
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
  delete meta.record_order;
  meta.format_version = '4';
  meta.checksum = tablesChecksum(meta, from.stateCounts());
  db.exec('DELETE FROM meta');
  const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  for (const [k, v] of Object.entries(meta)) putMeta.run(k, v);
  db.exec('COMMIT');
  db.close();
}

/** Format 3's tables, as that version wrote them, holding the same records and vectors as `from` (in PID order). */
export function writeFormat3(from: Dataset, path: string): void {
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
    if (!['checksum', 'block_records', 'record_order', 'vector_chunk', 'list_keys'].includes(k)) putMeta.run(k, v);
  db.exec('COMMIT');
  db.close();
}
