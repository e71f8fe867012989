// LATITUDE and LONGITUDE have vectors (coordinateVectors.ts) so that `near` does not read a state's
// records. On real files: every state's coordinates from the vectors equal the records' numbers,
// also where a state begins and ends inside a chunk; coordinates with more than six decimals are kept
// as doubles, exactly; a file without them is damaged (an older format's file without them is
// upgraded, test/dataset/legacy); and damage in a coordinate chunk is `dataset_damaged`, found by the
// verify too.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { ChunkLayout } from '../../../src/core/dataset/codec/vectorChunks';
import { generateDataset, generateRecords } from '../../../src/core/generate';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { engineAudience } from '../../support/audienceQueries';
import { fieldIndex } from '../../../src/shared/fields';

const LAT = fieldIndex('LATITUDE');
const LON = fieldIndex('LONGITUDE');

let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-coordinates-'));
  path = join(dir, 'd.sqlite');
  // Chunks of 1,000 positions: most states begin or end inside one.
  generateDataset({ rows: 6000, seed: 8, out: path, vectorChunk: 1000 });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every state's coordinates as the records hold them, interleaved as Dataset.coordinates() gives them. */
function fromRecords(dataset: Dataset): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const range of dataset.stateCounts()) {
    const pairs: number[] = [];
    for (const [lat, lon] of dataset.rangeValues(range.first, range.count, [LAT, LON])) pairs.push(lat as number, lon as number);
    out.set(range.state, pairs);
  }
  return out;
}

function storedEncodings(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT name, encoding, kind FROM columns WHERE name IN ('LATITUDE', 'LONGITUDE') ORDER BY name").all();
  } finally {
    db.close();
  }
}

describe('coordinate vectors', () => {
  it('give every state exactly the records’ coordinates, stored as millionths', () => {
    expect(storedEncodings(path)).toEqual([
      { name: 'LATITUDE', encoding: 'micro', kind: 'i32' },
      { name: 'LONGITUDE', encoding: 'micro', kind: 'i32' },
    ]);
    const dataset = Dataset.open(path);
    try {
      const expected = fromRecords(dataset);
      let insideChunk = 0;
      for (const range of dataset.stateCounts()) {
        expect(Array.from(dataset.coordinates(range)!), range.state).toEqual(expected.get(range.state));
        if (range.first % 1000 !== 0) insideChunk++;
      }
      expect(insideChunk).toBeGreaterThan(20);
      // Read for the call: nothing is kept against the vectors' budget.
      expect(dataset.vectorMemory().bytes).toBe(0);
    } finally {
      dataset.close();
    }
  });

  it('keep coordinates with more than six decimals as doubles, exactly', () => {
    const precise = join(dir, 'precise.sqlite');
    const writer = new DatasetWriter(precise, {}, undefined, new ChunkLayout(64));
    const records = [...generateRecords(400, 3)].map((r) => [...r] as Array<string | number>);
    records.forEach((r, i) => {
      r[LAT] = (r[LAT] as number) + (i % 7) * 1e-9;
      r[LON] = (r[LON] as number) - (i % 5) * 3e-8;
      writer.append(r);
    });
    writer.finish();
    expect(storedEncodings(precise)).toEqual([
      { name: 'LATITUDE', encoding: 'value', kind: 'f64' },
      { name: 'LONGITUDE', encoding: 'value', kind: 'f64' },
    ]);
    const dataset = Dataset.open(precise);
    try {
      const expected = fromRecords(dataset);
      // The file does hold coordinates that millionths would not give back.
      expect([...expected.values()].flat().some((v) => Math.round(v * 1e6) / 1e6 !== v)).toBe(true);
      for (const range of dataset.stateCounts()) expect(Array.from(dataset.coordinates(range)!)).toEqual(expected.get(range.state));
    } finally {
      dataset.close();
    }
  });

  it('are required: a file without them answers `near` with dataset_damaged naming the vector, never from a guess', async () => {
    const older = join(dir, 'older.sqlite');
    copyFileSync(path, older);
    const db = new Database(older);
    db.exec(
      "DELETE FROM columns WHERE name IN ('LATITUDE', 'LONGITUDE'); DELETE FROM vector_chunks WHERE name IN ('LATITUDE', 'LONGITUDE')",
    );
    db.close();
    const options = { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 0 };
    const without = new EmbeddedEngine(Dataset.open(older), options);
    try {
      const audience = await engineAudience(without, { state: 'CA', filters: [], near: { lat: 34.05, lon: -118.25, miles: 40 } });
      expect(() => without.count(audience)).toThrow(/damaged.*the vector of LATITUDE is missing/);
      expect(without.dataset.damage).toMatch(/the vector of LATITUDE is missing/);
    } finally {
      without.close();
    }
  });

  it('are checked: a damaged chunk is dataset_damaged, on read and in the verify', () => {
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(path, damaged);
    const db = new Database(damaged);
    const chunk = db.prepare("SELECT chunk, data FROM vector_chunks WHERE name = 'LONGITUDE' AND chunk = 2").get() as {
      chunk: number;
      data: Buffer;
    };
    const at = chunk.data.length >> 1;
    chunk.data[at] = chunk.data[at]! ^ 0x40;
    db.prepare("UPDATE vector_chunks SET data = ? WHERE name = 'LONGITUDE' AND chunk = 2").run(chunk.data);
    db.close();
    const dataset = Dataset.open(damaged);
    try {
      const hit = dataset.stateCounts().find((r) => r.first <= 2000 && r.first + r.count > 2000)!;
      expect(() => dataset.coordinates(hit)).toThrow(expect.objectContaining({ code: 'dataset_damaged' }));
      expect(() => [...dataset.verifySteps()]).toThrow(/chunk 2 of the vector of LONGITUDE/);
    } finally {
      dataset.close();
    }
  });
});
