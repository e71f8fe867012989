// `cli upgrade --db FILE` rewrites a file of each older format in the current one, in place: the
// same records in the same positions (a format 6 file keeps its own order and PID ranks), every
// vector again (coordinates too, where format 6 had none), the same answers as the file the current
// writer makes of the same records. A current file is left alone; a damaged one is refused and left
// byte for byte as it was, with nothing beside it.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkLayout } from '../../../src/core/dataset/codec/vectorChunks';
import { DATASET_FORMAT_VERSION } from '../../../src/core/dataset/format/schema';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { generateDataset, generateRecords } from '../../../src/core/generate';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { openSqlite } from '../../../src/core/sqlite';
import { normalizeAudienceRequest } from '../../../src/shared/audienceRequest';
import { FIELDS } from '../../../src/shared/fields';
import { engineAudience } from '../../support/audienceQueries';
import { cli } from '../../support/cli';
import { openDatasetSql } from '../../support/datasetSql';
import { writeFormat3, writeFormat4, writeFormat5, writeFormat6, writeFormat7 } from '../../support/legacyFiles';

const ROWS = 2000;
const CHUNK = 512;
let dir: string;
let current: string;
let inPidOrder: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-upgrade-'));
  current = join(dir, 'current.sqlite');
  inPidOrder = join(dir, 'pid.sqlite');
  generateDataset({ rows: ROWS, seed: 5, out: current, vectorChunk: CHUNK });
  const writer = new DatasetWriter(inPidOrder, { seed: '5' }, undefined, new ChunkLayout(CHUNK));
  for (const record of generateRecords(ROWS, 5)) writer.append(record);
  writer.finish();
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Makes a legacy file of `version` at `path`, from the current file in the matching order. */
function legacyFile(version: string, path: string): string {
  if (version === '6') writeFormat6(current, path, true);
  else if (version === '6-no-coordinates') writeFormat6(current, path, false);
  else if (version === '5') writeFormat5(inPidOrder, path);
  else {
    const open = Dataset.open(inPidOrder);
    if (version === '4') writeFormat4(open, inPidOrder, path);
    else writeFormat3(open, path);
    open.close();
  }
  return path;
}

/**
 * Flips one bit in the middle of one stored piece (the row at `offset` of `table` where `where`, by
 * `key`), as a bad disk would; returns the row's key.
 */
function flipAByte(path: string, table: string, key: string, where: string, offset: number): number {
  const db = openSqlite(path);
  try {
    const row = db.prepare(`SELECT ${key} AS key, data FROM ${table} WHERE ${where} ORDER BY ${key} LIMIT 1 OFFSET ${offset}`).get() as {
      key: number;
      data: Buffer;
    };
    row.data[row.data.length >> 1]! ^= 0x40;
    db.prepare(`UPDATE ${table} SET data = ? WHERE ${where} AND ${key} = ?`).run(row.data, row.key);
    return row.key;
  } finally {
    db.close();
  }
}

/** What a file answers: its records in position order, every vector, a page and a `near` count through the engine. */
async function answers(path: string) {
  const dataset = Dataset.open(path);
  try {
    const all = Uint32Array.from({ length: ROWS }, (_, k) => k);
    const engine = new EmbeddedEngine(dataset, { backgroundVerify: false });
    const audience = normalizeAudienceRequest({ state: 'CA', filters: [['GENDER', ['F']]] });
    const page = engine.recordPage(audience, 3, 40);
    const sample = dataset.recordTexts(Uint32Array.of(0))[0]!;
    const [lat, lon] = (JSON.parse(sample) as unknown[]).filter((_, i) => ['LATITUDE', 'LONGITUDE'].includes(FIELDS[i]!.name));
    const state = (JSON.parse(sample) as string[])[FIELDS.findIndex((f) => f.name === 'STATE')]!;
    const near = await engineAudience(engine, { state, filters: [], near: { lat: Number(lat), lon: Number(lon), miles: 50 } });
    return {
      format: dataset.formatVersion,
      texts: dataset.recordTexts(all),
      // Values by position, whatever codes a dictionary gives them.
      vectors: FIELDS.map((_, i) => {
        const c = dataset.column(i, 'all');
        return Array.from(c.data, (v) => (c.dict ? c.dict[v] : v));
      }),
      page: { total: page.total, records: page.records.map((r) => r.toString()) },
      near: engine.count(near),
    };
  } finally {
    dataset.close();
  }
}

describe('cli upgrade', () => {
  it.each([
    ['6', () => current],
    ['6-no-coordinates', () => current],
    ['5', () => inPidOrder],
    ['4', () => inPidOrder],
    ['3', () => inPidOrder],
  ])(
    'a format %s file becomes the current format with the same records, vectors and answers',
    async (version, reference) => {
      const path = legacyFile(version, join(dir, `v${version}.sqlite`));
      const result = await cli(['upgrade', '--db', path]);
      expect(result.stderr).toContain(`upgrade: ${ROWS} of ${ROWS} records`);
      expect(result.stdout).toBe(`upgraded: ${path}: ${ROWS} records, format ${version.slice(0, 1)} -> ${DATASET_FORMAT_VERSION}.\n`);
      expect(result.code).toBe(0);
      const [after, expected] = [await answers(path), await answers(reference())];
      expect(after.format).toBe(DATASET_FORMAT_VERSION);
      expect(after.page.records).toHaveLength(40);
      expect(after.near).toBeGreaterThan(0);
      expect(after).toEqual(expected);
      // The independent reader sees the same people, and the file passes the full check.
      const people = (p: string) => {
        const db = openDatasetSql(p);
        try {
          return db.prepare('SELECT _pos, PID, STATE, AGE, LATITUDE FROM people ORDER BY _pos').raw().all();
        } finally {
          db.close();
        }
      };
      expect(people(path)).toEqual(people(reference()));
      expect((await cli(['verify', '--db', path])).code).toBe(0);
      expect(Dataset.open(path).meta.upgraded_from).toBe(version.slice(0, 1));
      expect(readdirSync(dir).filter((f) => f.includes('.building-'))).toEqual([]);
    },
    120_000,
  );

  it('a format 7 file gets its small byte vectors packed in place: records, ranks and order byte for byte, the same answers', async () => {
    const path = join(dir, 'v7.sqlite');
    expect(writeFormat7(current, path)).toBeGreaterThan(0);
    const tables = (p: string) => {
      const db = openSqlite(p, { readonly: true });
      try {
        return ['record_blocks', 'pid_ranks', 'pid_order', 'list_keys', 'states', 'columns'].map((t) =>
          db.prepare(`SELECT * FROM ${t}`).raw().all(),
        );
      } finally {
        db.close();
      }
    };
    const before = tables(path);
    const result = await cli(['upgrade', '--db', path]);
    expect(result).toMatchObject({
      code: 0,
      stdout: `upgraded: ${path}: ${ROWS} records, format 7 -> ${DATASET_FORMAT_VERSION} (vector chunks packed in place).\n`,
    });
    expect(tables(path)).toEqual(before);
    // Every chunk now as the current writer stores it, so the file answers as the current one.
    const chunks = (p: string) => {
      const db = openSqlite(p, { readonly: true });
      try {
        return db.prepare('SELECT name, chunk, crc, data FROM vector_chunks ORDER BY name, chunk').raw().all();
      } finally {
        db.close();
      }
    };
    expect(chunks(path)).toEqual(chunks(current));
    expect(await answers(path)).toEqual(await answers(current));
    expect((await cli(['verify', '--db', path])).code).toBe(0);
    expect((await cli(['upgrade', '--db', path])).stdout).toBe(`current: ${path} is in format ${DATASET_FORMAT_VERSION} already.\n`);
  });

  it('a damaged format 7 file is refused and left byte for byte', async () => {
    const path = join(dir, 'damaged-v7.sqlite');
    writeFormat7(current, path);
    const chunk = flipAByte(path, 'vector_chunks', 'chunk', "name = 'GENDER'", 2);
    const before = readFileSync(path);
    const result = await cli(['upgrade', '--db', path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`chunk ${chunk} of the vector of GENDER fails its checksum`);
    expect(result.stdout).toBe('');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a current file is left as it was', async () => {
    const copy = join(dir, 'current-copy.sqlite');
    copyFileSync(current, copy);
    const before = readFileSync(copy);
    const result = await cli(['upgrade', '--db', copy]);
    expect(result).toMatchObject({ code: 0, stdout: `current: ${copy} is in format ${DATASET_FORMAT_VERSION} already.\n` });
    expect(readFileSync(copy).equals(before)).toBe(true);
  });

  it('a damaged file is refused in one line naming it and left byte for byte, with nothing beside it', async () => {
    const path = legacyFile('4', join(dir, 'damaged-v4.sqlite'));
    flipAByte(path, 'record_blocks', 'block', '1', 3);
    const before = readFileSync(path);
    const result = await cli(['upgrade', '--db', path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toMatch(/damaged/);
    expect(result.stdout).toBe('');
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('damaged-v4.sqlite.'))).toEqual([]);
  });

  it('a file of an unknown format or not a dataset is refused and left alone', async () => {
    const v9 = join(dir, 'v9.sqlite');
    copyFileSync(current, v9);
    const db = openSqlite(v9);
    db.prepare("UPDATE meta SET value = '9' WHERE key = 'format_version'").run();
    db.close();
    const result = await cli(['upgrade', '--db', v9]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The dataset file ${v9} has format 9`);
    const foreign = join(dir, 'foreign.sqlite');
    const other = openSqlite(foreign);
    other.exec('CREATE TABLE t (x)');
    other.close();
    const before = readFileSync(foreign);
    const refused = await cli(['upgrade', '--db', foreign]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The file ${foreign} is not an Audience Desk dataset.`);
    expect(readFileSync(foreign).equals(before)).toBe(true);
  });
});
