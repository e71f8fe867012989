// The format is a contract (docs/dataset-format.md): a new file is format 7 and records its version,
// order and checksums; a file of an older format (3 to 6) is refused with the one command that
// upgrades it (test/dataset/legacy/upgrade.test.ts upgrades them); another format, a foreign SQLite
// file and a file that is not SQLite are refused in one sentence naming the file.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_LEVEL, RECORDS_PER_BLOCK } from '../../../src/core/dataset/codec/blockCodec';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { DATASET_FORMAT_VERSION } from '../../../src/core/dataset/format/schema';
import { PACKED_MAGIC } from '../../../src/core/dataset/codec/packedChunks';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { ChunkLayout } from '../../../src/core/dataset/codec/vectorChunks';
import { generateDataset, generateRecords } from '../../../src/core/generate';
import { openSqlite } from '../../../src/core/sqlite';
import { FIELDS } from '../../../src/shared/fields';
import { copyWithMeta } from '../../support/datasetMeta';
import { writeFormat3, writeFormat4, writeFormat5, writeFormat6 } from '../../support/legacyFiles';

let dir: string;
/** Generated: the current format, in household order. */
let current: string;
/** The same records written in PID order. */
let inPidOrder: string;

const ROWS = 2000;
// Several vector chunks, the last a short one.
const CHUNK = 512;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-formats-'));
  current = join(dir, 'current.sqlite');
  inPidOrder = join(dir, 'pid.sqlite');
  generateDataset({ rows: ROWS, seed: 3, out: current, vectorChunk: CHUNK });
  const writer = new DatasetWriter(inPidOrder, {}, undefined, new ChunkLayout(CHUNK));
  for (const record of generateRecords(ROWS, 3)) writer.append(record);
  writer.finish();
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dataset formats', () => {
  it('a new file is format 8: blocks of records, chunks of every vector with their checksums (small byte values packed), meta checksum, order, block and chunk size', () => {
    const db = openSqlite(current, { readonly: true });
    try {
      const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as Array<[string, string]>);
      expect(meta.format_version).toBe(DATASET_FORMAT_VERSION);
      expect(DATASET_FORMAT_VERSION).toBe('8');
      expect(meta.record_order).toBe('ranked');
      expect(db.prepare('SELECT count(*) FROM pid_ranks').pluck().get()).toBe(Math.ceil(ROWS / CHUNK));
      expect(meta.block_records).toBe(String(RECORDS_PER_BLOCK));
      expect(meta.record_level).toBe(String(RECORD_LEVEL));
      expect(db.pragma('page_size', { simple: true })).toBe(2048);
      expect(meta.vector_chunk).toBe(String(CHUNK));
      // Its optional parts are named in meta, with what they were written under.
      expect(JSON.parse(meta.list_keys!)).toMatchObject({ rules: expect.any(Number), fields: expect.any(Array) });
      expect(JSON.parse(meta.hhid_collisions!)).toEqual(expect.any(Array));
      // A vector for every field, LATITUDE and LONGITUDE (for `near`) among them.
      expect(db.prepare('SELECT count(*) FROM columns').pluck().get()).toBe(FIELDS.length);
      expect(db.prepare('SELECT count(*) FROM vector_chunks').pluck().get()).toBe(FIELDS.length * Math.ceil(ROWS / CHUNK));
      // GENDER's codes (two values) are packed a bit each; a hashed field's words are zstd frames.
      const first = (name: string) => db.prepare('SELECT data FROM vector_chunks WHERE name = ? AND chunk = 0').pluck().get(name) as Buffer;
      expect(first('GENDER').readUInt32LE(0)).toBe(PACKED_MAGIC);
      expect(first('GENDER')[8]).toBe(1);
      expect(first('PID').readUInt32LE(0)).toBe(0xfd2fb528);
      expect(meta.checksum).toMatch(/^\d+$/);
      expect(db.prepare('SELECT count(*) FROM record_blocks').pluck().get()).toBe(Math.ceil(ROWS / RECORDS_PER_BLOCK));
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('records', 'people')").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });

  it('a file of every older format is refused with the command that upgrades it, and left as it was', () => {
    const open = Dataset.open(inPidOrder);
    const files: Array<[string, string]> = [
      ['6', join(dir, 'v6.sqlite')],
      ['6', join(dir, 'v6-no-coordinates.sqlite')],
      ['5', join(dir, 'v5.sqlite')],
      ['4', join(dir, 'v4.sqlite')],
      ['3', join(dir, 'v3.sqlite')],
    ];
    writeFormat6(current, files[0]![1], true);
    writeFormat6(current, files[1]![1], false);
    writeFormat5(inPidOrder, files[2]![1]);
    writeFormat4(open, inPidOrder, files[3]![1]);
    writeFormat3(open, files[4]![1]);
    open.close();
    for (const [version, path] of files)
      expect(() => Dataset.open(path)).toThrow(
        `The dataset file ${path} is in format ${version}, which this version upgrades but no longer reads; upgrade it once with: npm run --silent cli -- upgrade --db "${path}"`,
      );
  });

  it('a file written at a higher zstd level (as the bundled sample is) is smaller and reads the same records', () => {
    const high = join(dir, 'level15.sqlite');
    generateDataset({ rows: ROWS, seed: 3, out: high, vectorChunk: CHUNK, recordLevel: 15 });
    const [a, b] = [Dataset.open(current), Dataset.open(high)];
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
      expect(blockBytes(high)).toBeLessThan(blockBytes(current) * 0.95);
    } finally {
      a.close();
      b.close();
    }
  });

  it('refuses another format, a SQLite file that is not a dataset and a file that is not SQLite, in one sentence naming the file', () => {
    const v9 = join(dir, 'v9.sqlite');
    copyFileSync(current, v9);
    const db = openSqlite(v9);
    db.prepare("UPDATE meta SET value = '9' WHERE key = 'format_version'").run();
    db.close();
    expect(() => Dataset.open(v9)).toThrow(
      `The dataset file ${v9} has format 9; this version of Audience Desk reads format 8 (and upgrades formats 3, 4, 5, 6, 7).`,
    );
    const foreign = join(dir, 'foreign.sqlite');
    const other = openSqlite(foreign);
    other.exec('CREATE TABLE t (x)');
    other.close();
    expect(() => Dataset.open(foreign)).toThrow(`The file ${foreign} is not an Audience Desk dataset.`);
    const text = join(dir, 'text.sqlite');
    writeFileSync(text, 'PID,FNAME\n1,A\n');
    expect(() => Dataset.open(text)).toThrow(`The file ${text} is not an Audience Desk dataset (it is not a SQLite database).`);
  });

  it('a file whose meta names no record order is refused as damaged, not read in a guessed order', () => {
    // Checksum made right: only the order is missing.
    const unordered = copyWithMeta(current, join(dir, 'unordered.sqlite'), { record_order: null });
    expect(() => Dataset.open(unordered)).toThrow(/damaged.*its records are in an order this version does not know \(none\)/);
  });
});
