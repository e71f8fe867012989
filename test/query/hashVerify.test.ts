// Hash matches of a hashed field are verified against the records (query/predicates.ts). An empty
// value is the only one that hashes to 0, so the people a filter of "" keeps are settled without
// reading their records: a filter of "" and a value once read every empty record at once, which at
// 10M ran the process out of memory. The counts stay the oracle's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { fieldIndex } from '../../src/shared/fields';
import { SqlOracle } from '../support/oracle';

let dir: string;
let engine: EmbeddedEngine;
let oracle: SqlOracle;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-hash-verify-'));
  const path = join(dir, 'd.sqlite');
  generateDataset({ rows: 6000, seed: 14, out: path, dictionaryLimit: 50 });
  engine = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0 });
  oracle = new SqlOracle(path);
}, 60_000);
afterAll(() => {
  engine?.close();
  oracle?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('verifying hash matches', () => {
  it('reads no record of the empty ones a filter of "" and a value keeps', () => {
    expect(engine.dataset.columnInfo(fieldIndex('PHONE2')).encoding).toBe('hash');
    const value = oracle.distinct('CA', 'PHONE2').at(-1) as string;
    const empty = oracle.count('CA', [['PHONE2', ['']]]);
    const withValue = oracle.count('CA', [['PHONE2', ['', value]]]);
    expect(empty).toBeGreaterThan(100);
    expect(withValue).toBeGreaterThan(empty);
    const read = vi.spyOn(engine.dataset, 'fullRows');
    try {
      expect(engine.count(normalizeAudienceRequest({ state: 'CA', filters: [['PHONE2', ['', value]]] }))).toBe(withValue);
      const recordsRead = read.mock.calls.reduce((sum, [positions]) => sum + positions.length, 0);
      // The value's candidates only (its matches, and any record whose value shares its hash).
      expect(recordsRead).toBeGreaterThanOrEqual(withValue - empty);
      expect(recordsRead).toBeLessThan(empty);
    } finally {
      read.mockRestore();
    }
  });

  it('gives the oracle counts for empty, present and absent values, alone and mixed with other filters', () => {
    const phones = oracle.distinct('CA', 'PHONE2').filter((v) => v !== '') as string[];
    const cases: Array<Array<[string, string[]]>> = [
      [['PHONE2', ['']]],
      [['PHONE2', phones.slice(0, 5)]],
      [['PHONE2', ['', ...phones.slice(0, 3)]]],
      [['PHONE2', ['', 'no such phone']]],
      [
        ['PHONE2', ['', phones[7]!]],
        ['GENDER', ['F']],
      ],
    ];
    for (const filters of cases)
      expect(engine.count(normalizeAudienceRequest({ state: 'CA', filters })), JSON.stringify(filters)).toBe(oracle.count('CA', filters));
  });
});
