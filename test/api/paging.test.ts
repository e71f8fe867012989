// Paging invariants: pages are consecutive and disjoint and cover the audience; totals add up
// across a partition of a field's values.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import type { SqlOracle } from '../support/oracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
});

async function total(state: string, filters: unknown[]): Promise<number> {
  return ((await (await api.post('/api/audiences/preview', { state, limit: 0, filters })).json()) as any).total;
}

describe('paging', () => {
  it.each([
    ['CA', []],
    [
      'CA',
      [
        ['GENDER', ['M']],
        ['AGE', ['25-44']],
      ],
    ],
    ['PA', [['MARRIEDCD', ['S']]]],
  ])('pages of %s %j are consecutive, disjoint and cover the audience in PID order', async (state, filters) => {
    const expected = oracle.pids(state as string, filters as any);
    const seen: string[] = [];
    const limit = 977; // not a divisor of anything in particular
    for (let skip = 0; skip < expected.length + limit; skip += limit) {
      const body = (await (await api.post('/api/audiences/preview', { state, limit, skip, filters })).json()) as any;
      expect(body.total).toBe(expected.length);
      seen.push(...body.results.map((r: any) => r.pid));
    }
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('search pages at deep skips equal the oracle', async () => {
    const filters = [['AGE', ['18-40']]];
    const n = oracle.count('CA', filters as any);
    for (const skip of [0, Math.floor(n / 3), n - 7]) {
      const body = (await (await api.post('/api/audiences/search', { state: 'CA', limit: 20, skip, filters })).json()) as any;
      expect(body.results.map((r: any) => r.PID)).toEqual(oracle.pids('CA', filters as any, 20, skip));
    }
  });

  it('totals add up across a partition of values', async () => {
    const all = await total('TX', []);
    expect((await total('TX', [['GENDER', ['F']]])) + (await total('TX', [['GENDER', ['M']]]))).toBe(all);
    const bands = ['18-24', '25-34', '35-44', '45-54', '55-64', '65+'];
    let sum = 0;
    for (const band of bands) sum += await total('TX', [['AGE', [band]]]);
    expect(sum).toBe(all);
    let byValue = 0;
    for (const value of oracle.distinct('TX', 'HOMEOWNERC')) byValue += await total('TX', [['HOMEOWNERC', [value]]]);
    expect(byValue).toBe(all);
    let byState = 0;
    for (const s of ['CA', 'TX', 'NY', 'FL', 'WY']) byState += await total(s, []);
    expect(byState).toBe(['CA', 'TX', 'NY', 'FL', 'WY'].reduce((a, s) => a + oracle.count(s), 0));
  });
});
