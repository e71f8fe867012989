// Fields with too many distinct values for a dictionary are stored as hashes and verified against
// the record on a match. A dataset written with a tiny dictionary limit puts most string fields
// in that mode, so these filters must still give exactly the oracle's answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/core/generate';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { fieldIndex } from '../../src/shared/fields';
import { startApi, type ApiHarness } from '../support/apiHarness';
import { SqlOracle } from '../support/oracle';

let dir: string;
let api: ApiHarness;
let oracle: SqlOracle;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-hashed-'));
  const path = join(dir, 'hashed.sqlite');
  generateDataset({ rows: 6000, seed: 9, out: path, dictionaryLimit: 50 });
  api = await startApi(path);
  oracle = new SqlOracle(path);
});
afterAll(async () => {
  await api.close();
  oracle.close();
  rmSync(dir, { recursive: true, force: true });
});

const total = async (filters: unknown[]) =>
  ((await (await api.post('/api/audiences/preview', { state: 'CA', limit: 0, filters })).json()) as any).total as number;

describe('hashed string fields', () => {
  it('are stored as hashes when they pass the dictionary limit', () => {
    const dataset = Dataset.open(join(dir, 'hashed.sqlite'));
    expect(dataset.columnInfo(fieldIndex('PID')).encoding).toBe('hash');
    expect(dataset.columnInfo(fieldIndex('LNAME')).encoding).toBe('hash');
    expect(dataset.columnInfo(fieldIndex('GENDER')).encoding).toBe('dict');
    expect(dataset.columnInfo(fieldIndex('AGE')).encoding).toBe('value');
    dataset.close();
  });

  it('match exactly: single values, several values, empty values, absent values, mixed with other filters', async () => {
    const pids = oracle.pids('CA').slice(0, 3);
    const lname = oracle.distinct('CA', 'LNAME').find((n) => oracle.count('CA', [['LNAME', [n as string]]]) > 2) as string;
    const cases: Array<Array<[string, Array<string | number>]>> = [
      [['PID', [pids[0]!]]],
      [['PID', pids]],
      [['pid', [pids[1]!.toLowerCase()]]],
      [
        ['LNAME', [lname]],
        ['GENDER', ['F']],
      ],
      [['PHONE2', ['']]],
      [['PHONE2', ['', oracle.distinct('CA', 'PHONE2').at(-1) as string]]],
      [['PHONE', ['0000000000']]],
      [
        ['ADDRESS', [oracle.distinct('CA', 'ADDRESS')[3] as string]],
        ['AGE', ['18-60']],
      ],
    ];
    for (const filters of cases) expect(await total(filters), JSON.stringify(filters)).toBe(oracle.count('CA', filters));
    const body = (await (await api.post('/api/audiences/search', { state: 'CA', filters: [['PID', [pids[2]!]]] })).json()) as any;
    expect(body.results.map((r: any) => r.PID)).toEqual([pids[2]]);
  });
});
