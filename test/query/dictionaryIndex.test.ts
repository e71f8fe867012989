// A string filter finds its values' codes by scanning the field's dictionary for its first uses and
// through a value -> code map after that (predicates.ts, DictionaryIndex): both ways must give the
// same codes, and the counts must be the records' own, before and after the switch. A first use
// makes no string of the dictionary's values (dictionaryText.ts); what reads them all does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { DictionaryIndex } from '../../src/core/query/predicates';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { fieldIndex } from '../../src/shared/fields';

let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-dictionary-index-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: 4000, seed: 12, out: path });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dictionary codes', () => {
  it('scanning and the map give every value its own code, and none to a value no record holds', () => {
    const dataset = Dataset.open(path);
    try {
      const zip = fieldIndex('ZIP');
      const dict = dataset.columnInfo(zip).dict!;
      expect(dict.length).toBeGreaterThan(200);
      const index = new DictionaryIndex(dataset);
      expect(index.size(zip)).toBe(dict.length);
      // Every value twice: the first passes are scans, the rest go through the map.
      const asked = [...dict, ...dict, 'not-a-zip'];
      const codes = asked.map((value) => index.code(zip, value));
      expect(codes.slice(0, dict.length)).toEqual(dict.map((_, code) => code));
      expect(codes.slice(dict.length, 2 * dict.length)).toEqual(dict.map((_, code) => code));
      expect(codes[codes.length - 1]).toBeUndefined();
    } finally {
      dataset.close();
    }
  });

  it('counts a first use without making the values of the dictionary, which a read of them all then makes', () => {
    const dataset = Dataset.open(path);
    const engine = new EmbeddedEngine(dataset, { backgroundVerify: false, selectionCacheBytes: 0 });
    try {
      const zip = fieldIndex('ZIP');
      const { first, count } = dataset.stateRange('CA');
      const rows = dataset.fullRows(Array.from({ length: count }, (_, k) => first + k));
      const zips = [...new Set(rows.map((r) => r[zip] as string))].slice(0, 5);
      const expected = rows.filter((r) => zips.includes(r[zip] as string)).length;
      expect(expected).toBeGreaterThan(0);
      expect(engine.count(normalizeAudienceRequest({ state: 'CA', filters: [['ZIP', [...zips, '00000']]] }))).toBe(expected);
      const dictionary = dataset.columnInfo(zip).dictionary!;
      expect(dictionary.made).toBe(false);
      const values = dataset.columnInfo(zip).dict!;
      expect(dictionary.made).toBe(true);
      expect(values.length).toBe(dictionary.size);
      for (const value of zips) expect(values.indexOf(value)).toBe(dictionary.indexOf(value));
    } finally {
      engine.close();
    }
  });

  it('counts match the records before and after the switch to a map', () => {
    const dataset = Dataset.open(path);
    const engine = new EmbeddedEngine(dataset, { backgroundVerify: false, selectionCacheBytes: 0 });
    try {
      const city = fieldIndex('CITY');
      const { first, count } = dataset.stateRange('CA');
      const rows = dataset.fullRows(Array.from({ length: count }, (_, k) => first + k));
      const cities = [...new Set(rows.map((r) => r[city] as string))].slice(0, 90);
      expect(cities.length).toBe(90);
      for (const value of cities) {
        const expected = rows.filter((r) => r[city] === value).length;
        expect(engine.count(normalizeAudienceRequest({ state: 'CA', filters: [['CITY', [value]]] }))).toBe(expected);
      }
    } finally {
      engine.close();
    }
  });
});
