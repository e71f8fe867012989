// The generated file holds exactly the generator's records, in the generator's storage order: read
// back without the product's decoder (test/support/datasetSql.ts decompresses the blocks with
// node:zlib), so the oracles that build their tables the same way rest on the file as written, not
// on the product's own reading of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/core/generate';
import { generateRecords, generateStored } from '../../src/core/generate/generateRecords';
import { fieldIndex } from '../../src/shared/fields';
import { openDatasetSql } from '../support/datasetSql';

const ROWS = 2500;
const SEED = 41;
let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-generated-'));
  path = join(dir, 'g.sqlite');
  generateDataset({ rows: ROWS, seed: SEED, out: path });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a generated file', () => {
  it("holds the generator's records, text for text, in its storage order", () => {
    const db = openDatasetSql(path);
    try {
      const stored = db.prepare('SELECT record FROM records ORDER BY _pos').pluck().all() as string[];
      const generated = Array.from(generateStored(ROWS, SEED), (s) => JSON.stringify(s.record));
      expect(stored.length).toBe(ROWS);
      expect(stored).toEqual(generated);
    } finally {
      db.close();
    }
  });

  it("in (STATE, PID) order is the generator's other stream, record for record", () => {
    const db = openDatasetSql(path);
    try {
      const byPid = db
        .prepare(
          `SELECT record FROM records ORDER BY json_extract(record, '$[${fieldIndex('STATE')}]'), json_extract(record, '$[${fieldIndex('PID')}]')`,
        )
        .pluck()
        .all() as string[];
      expect(byPid).toEqual(Array.from(generateRecords(ROWS, SEED), (r) => JSON.stringify(r)));
    } finally {
      db.close();
    }
  });
});
