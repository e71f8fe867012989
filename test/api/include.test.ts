// `include` over HTTP (extensions.md): only the people of at least one saved audience, suppression
// list or earlier export, checked against set arithmetic on plain SQL's people and on full pages;
// applied with `exclude`, households and samples in the documented order; a 400 naming `include`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import { audiencePages } from '../support/audiencePages';
import type { SqlOracle } from '../support/oracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
const { post, allPids } = audiencePages(() => api);
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
});

type Filters = Array<[string, Array<string | number>]>;

const SEED: Filters = [['GENDER', ['F']]];
const inBoth = (a: readonly string[], b: Iterable<string>) => {
  const keep = new Set(b);
  return a.filter((p) => keep.has(p));
};

describe('include', () => {
  it('keeps only the people of a saved audience (as it matches now), with its own controls', async () => {
    const owners = api.core.savedAudiences.save({ name: 'owners', state: 'CA', filters: [['HOMEOWNERC', ['H']]] });
    const expected = inBoth(oracle.pids('CA', SEED), oracle.pids('CA', [['HOMEOWNERC', ['H']]]));
    expect(expected.length).toBeGreaterThan(50);
    expect(await allPids({ state: 'CA', filters: SEED, include: [`saved:${owners.id}`] })).toEqual(expected);
    const callable = api.core.savedAudiences.save({ name: 'callable', state: 'CA', filters: [], contact: { phone: 'callable' } });
    expect(await allPids({ state: 'CA', filters: SEED, include: [`saved:${callable.id}`] })).toEqual(
      inBoth(oracle.pids('CA', SEED), oracle.listPids('CA', [], { phone: true })),
    );
  });

  it('of several, keeps the people of at least one (a union), then exclude leaves some out', async () => {
    const married = api.core.savedAudiences.save({ name: 'married', state: 'TX', filters: [['MARRIEDCD', ['M']]] });
    const old = api.core.savedAudiences.save({ name: '65+', state: 'TX', filters: [['AGE', ['65+']]] });
    const owners = api.core.savedAudiences.save({ name: 'owners TX', state: 'TX', filters: [['HOMEOWNERC', ['H']]] });
    const union = new Set([...oracle.pids('TX', [['MARRIEDCD', ['M']]]), ...oracle.pids('TX', [['AGE', ['65+']]])]);
    const included = inBoth(oracle.pids('TX', SEED), union);
    expect(await allPids({ state: 'TX', filters: SEED, include: [`saved:${married.id}`, `saved:${old.id}`] })).toEqual(included);
    const ownersSet = new Set(oracle.pids('TX', [['HOMEOWNERC', ['H']]]));
    const left = included.filter((p) => !ownersSet.has(p));
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(included.length);
    const request = { state: 'TX', filters: SEED, include: [`saved:${married.id}`, `saved:${old.id}`], exclude: [`saved:${owners.id}`] };
    expect(await allPids(request)).toEqual(left);
    // Households come after include and exclude: the lowest PID of each household among those left.
    const households = oracle.listPids('TX', SEED, { oneHousehold: true, excludePids: oracle.pids('TX').filter((p) => !left.includes(p)) });
    expect(await allPids({ ...request, households: 'one' })).toEqual(households);
    // A saved audience of another state includes nobody here.
    expect((await post({ state: 'CA', include: [`saved:${married.id}`], limit: 0 })).body.total).toBe(0);
  });

  it('keeps the people a suppression list names', async () => {
    const pids = oracle.pids('NY').filter((_, k) => k % 7 === 0);
    const file = join(api.homeDir, 'customers.csv');
    writeFileSync(file, `PID\n${pids.join('\n')}\n`);
    const list = await api.core.lists.import(file, 'customers');
    expect(await allPids({ state: 'NY', include: [`list:${list.id}`] })).toEqual(pids);
    expect(await allPids({ state: 'NY', filters: SEED, include: [`list:${list.id}`] })).toEqual(inBoth(oracle.pids('NY', SEED), pids));
    const search = await post({ state: 'NY', include: [`list:${list.id}`], limit: 3, skip: 2 }, 'search');
    expect(search.body.results.map((r: { PID: string }) => r.PID)).toEqual(pids.slice(2, 5));
  });

  it('a request without include answers as before; bad values and unknown ids are a 400 naming include', async () => {
    expect((await post({ state: 'WY', include: [], limit: 0 })).body.total).toBe(oracle.count('WY'));
    for (const include of [['saved:999999'], ['list:nope'], ['export:424242'], ['people:1'], 'saved:1', [7]]) {
      const answer = await post({ state: 'CA', include });
      expect(answer.status, JSON.stringify(include)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', field: 'include' });
    }
  });
});
