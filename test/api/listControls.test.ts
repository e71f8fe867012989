// extensions.md's list controls over HTTP, against plain SQL over the same dataset file: contact,
// households, exclusions of saved audiences, samples, their combinations, totals and paging, and a
// 400 naming the key for every bad value.
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

const SEED: Filters = [
  ['GENDER', ['F']],
  ['AGE', ['25-54']],
];

describe('contact', () => {
  it.each([
    ['CA', [], { phone: 'callable' }],
    ['TX', SEED, { phone: 'callable' }],
    ['CA', [], { mail: 'deliverable' }],
    ['NY', SEED, { phone: 'callable', mail: 'deliverable' }],
  ] as Array<[string, Filters, Record<string, string>]>)(
    '%s %j %j pages exactly the people plain SQL finds',
    async (state, filters, contact) => {
      const expected = oracle.listPids(state, filters, { phone: !!contact.phone, mail: !!contact.mail });
      expect(expected.length).toBeGreaterThan(50);
      expect(expected.length).toBeLessThan(oracle.count(state, filters));
      expect(await allPids({ state, filters, contact })).toEqual(expected);
    },
  );

  it('pairs each phone with its own DNC flag (a flagged PHONE does not make PHONE2 uncallable)', async () => {
    // People whose first phone is flagged but whose second is usable and unflagged: callable.
    const pairs = oracle.listPids('CA', [['DNC', ['Y']]], { phone: true });
    const flaggedOnly = oracle.listPids('CA', [['DNC', ['Y']]], {});
    expect(pairs.length).toBeGreaterThan(0);
    expect(pairs.length).toBeLessThan(flaggedOnly.length);
    expect(await allPids({ state: 'CA', filters: [['DNC', ['Y']]], contact: { phone: 'callable' } })).toEqual(pairs);
  });
});

describe('households', () => {
  it.each([
    ['CA', [] as Filters],
    ['FL', SEED],
  ])('"one" keeps the lowest PID of each household among those left (%s %j)', async (state, filters) => {
    const expected = oracle.listPids(state, filters, { oneHousehold: true });
    expect(expected.length).toBeLessThan(oracle.count(state, filters));
    expect(await allPids({ state, filters, households: 'one' })).toEqual(expected);
    // "all" is the default and changes nothing.
    expect((await post({ state, filters, households: 'all', limit: 0 })).body.total).toBe(oracle.count(state, filters));
  });

  it('applies after contact: the household keeps its lowest callable person', async () => {
    const expected = oracle.listPids('CA', SEED, { phone: true, oneHousehold: true });
    expect(await allPids({ state: 'CA', filters: SEED, contact: { phone: 'callable' }, households: 'one' })).toEqual(expected);
  });
});

describe('sample', () => {
  it('every n picks the 1st, (n+1)th, (2n+1)th … person in PID order, after households', async () => {
    for (const every of [1, 3, 10]) {
      const expected = oracle.listPids('CA', SEED, { oneHousehold: true, every });
      expect(await allPids({ state: 'CA', filters: SEED, households: 'one', sample: { every } })).toEqual(expected);
    }
  });

  it('size n with a seed is a deterministic subset in PID order, different for another seed', async () => {
    const everyone = oracle.listPids('TX', SEED, {});
    const a = await allPids({ state: 'TX', filters: SEED, sample: { size: 200, seed: 7 } });
    const again = await allPids({ state: 'TX', filters: SEED, sample: { size: 200, seed: 7 } });
    const b = await allPids({ state: 'TX', filters: SEED, sample: { size: 200, seed: 8 } });
    expect(a).toHaveLength(200);
    expect(again).toEqual(a);
    expect(b).toHaveLength(200);
    expect(b).not.toEqual(a);
    expect([...a].sort()).toEqual(a);
    const all = new Set(everyone);
    expect(a.every((pid) => all.has(pid))).toBe(true);
    expect(new Set(a).size).toBe(200);
    // Uniform: the sample's people are spread over the whole audience, not bunched at its start.
    const firstHalf = new Set(everyone.slice(0, everyone.length / 2));
    const inFirstHalf = a.filter((pid) => firstHalf.has(pid)).length;
    expect(inFirstHalf).toBeGreaterThan(70);
    expect(inFirstHalf).toBeLessThan(130);
  });

  it('size at least the audience returns everyone', async () => {
    const everyone = oracle.listPids('WY', [], {});
    expect(await allPids({ state: 'WY', sample: { size: everyone.length + 5, seed: 1 } })).toEqual(everyone);
  });
});

/** mulberry32 (its public definition), seeded with a seed below 2^32 as it is. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** docs/list-controls.md's sized sample, written here from the page: a partial Fisher-Yates shuffle of the indexes, kept in order. */
function sampleOf<T>(list: readonly T[], size: number, seed: number): T[] {
  if (size >= list.length) return [...list];
  const order = list.map((_, k) => k);
  const random = mulberry32(seed);
  for (let k = 0; k < size; k++) {
    const j = k + Math.floor(random() * (order.length - k));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  return order
    .slice(0, size)
    .sort((a, b) => a - b)
    .map((k) => list[k]!);
}

describe('exclude, then households, then a sized sample', () => {
  it('keep exactly the people plain SQL and the documented sample keep', async () => {
    const saved = api.core.savedAudiences.save({ name: 'homeowners in CA', state: 'CA', filters: [['HOMEOWNERC', ['H']]] });
    const excluded = oracle.pids('CA', [['HOMEOWNERC', ['H']]]);
    const afterExclusions = oracle.listPids('CA', SEED, { excludePids: excluded });
    const afterHouseholds = oracle.listPids('CA', SEED, { excludePids: excluded, oneHousehold: true });
    const size = Math.floor(afterHouseholds.length / 3);
    expect(afterHouseholds.length).toBeLessThan(afterExclusions.length);
    expect(afterExclusions.length).toBeLessThan(oracle.count('CA', SEED));
    expect(size).toBeGreaterThan(20);
    const request = { state: 'CA', filters: SEED, exclude: [`saved:${saved.id}`], households: 'one', sample: { size, seed: 29 } };
    expect(await allPids(request)).toEqual(sampleOf(afterHouseholds, size, 29));
    expect(await allPids({ ...request, sample: undefined })).toEqual(afterHouseholds);
  });
});

describe('exclude', () => {
  it('leaves out the people of a saved audience, as it matches now, and unknown ids are a 400', async () => {
    const saved = api.core.savedAudiences.save({ name: 'married women in CA', state: 'CA', filters: [['MARRIEDCD', ['M']]] });
    const married = oracle.pids('CA', [['MARRIEDCD', ['M']]]);
    const expected = oracle.listPids('CA', SEED, { excludePids: married });
    expect(expected.length).toBeGreaterThan(0);
    expect(await allPids({ state: 'CA', filters: SEED, exclude: [`saved:${saved.id}`] })).toEqual(expected);
    const unknown = await post({ state: 'CA', exclude: ['saved:999999'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_request', field: 'exclude' });
  });

  it('a saved audience keeps its own controls when it is excluded, and a loop of exclusions is a 400', async () => {
    const callable = api.core.savedAudiences.save({ name: 'callable CA', state: 'CA', filters: [], contact: { phone: 'callable' } });
    const expected = oracle.listPids('CA', SEED, { excludePids: oracle.listPids('CA', [], { phone: true }) });
    expect(await allPids({ state: 'CA', filters: SEED, exclude: [`saved:${callable.id}`] })).toEqual(expected);
    // Chains resolve as they match now: a = all of CA, b = CA without a (nobody), c = CA without b (all).
    const a = api.core.savedAudiences.save({ name: 'chain a', state: 'CA', filters: [] });
    const b = api.core.savedAudiences.save({ name: 'chain b', state: 'CA', filters: [], exclude: [`saved:${a.id}`] });
    const c = api.core.savedAudiences.save({ name: 'chain c', state: 'CA', filters: [], exclude: [`saved:${b.id}`] });
    expect((await post({ state: 'CA', exclude: [`saved:${b.id}`], limit: 0 })).body.total).toBe(oracle.count('CA'));
    expect((await post({ state: 'CA', exclude: [`saved:${c.id}`], limit: 0 })).body.total).toBe(0);
    // A saved audience can name the id it is about to get: excluding it would never end.
    const self = api.core.savedAudiences.save({ name: 'names itself', state: 'CA', filters: [], exclude: [`saved:${c.id + 1}`] });
    expect(self.id).toBe(c.id + 1);
    const loop = await post({ state: 'CA', exclude: [`saved:${self.id}`] });
    expect(loop.status).toBe(400);
    expect(loop.body.error).toMatchObject({ code: 'invalid_request', field: 'exclude' });
  });
});

describe('near', () => {
  /** Great-circle miles by the spherical law of cosines: a different formula from the engine's haversine. */
  const miles = (a: { lat: number; lon: number }, b: { lat: number; lon: number }): number => {
    const r = Math.PI / 180;
    const c = Math.sin(a.lat * r) * Math.sin(b.lat * r) + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.cos((a.lon - b.lon) * r);
    return 3958.8 * Math.acos(Math.min(1, Math.max(-1, c)));
  };

  it('keeps exactly the people within the radius of a point, as an independent great-circle computation says', async () => {
    const la = { lat: 34.05, lon: -118.25 };
    for (const radius of [5, 25, 120]) {
      const expected = oracle
        .places('CA', SEED)
        .filter((p) => miles(la, p) <= radius)
        .map((p) => p.pid);
      expect(expected.length).toBeGreaterThan(0);
      expect(await allPids({ state: 'CA', filters: SEED, near: { ...la, miles: radius } })).toEqual(expected);
    }
  });

  it('measures from a ZIP centre (the mean position of its people in the dataset) and then applies households', async () => {
    const zip = String(oracle.distinct('TX', 'ZIP')[0]);
    const centre = oracle.zipCentre(zip);
    expect(centre.n).toBeGreaterThan(0);
    const near = oracle
      .places('TX')
      .filter((p) => miles(centre, p) <= 40)
      .map((p) => p.pid);
    expect(await allPids({ state: 'TX', near: { zip, miles: 40 } })).toEqual(near);
    // Households apply to the people near: the lowest PID of each household among them.
    const inside = new Set(near);
    const outside = oracle.pids('TX').filter((p) => !inside.has(p));
    expect(await allPids({ state: 'TX', near: { zip, miles: 40 }, households: 'one' })).toEqual(
      oracle.listPids('TX', [], { excludePids: outside, oneHousehold: true }),
    );
  });

  it('a ZIP of another state is a 400 naming the ZIP and "near", not a total of 0 (preview, search and with filters)', async () => {
    const nyZip = String(oracle.distinct('NY', 'ZIP')[0]);
    expect(oracle.count('CA', [['ZIP', [nyZip]]])).toBe(0);
    for (const op of ['preview', 'search'] as const) {
      const r = await post({ state: 'CA', filters: SEED, near: { zip: nyZip, miles: 25 } }, op);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'near' });
      expect(r.body.error.message).toContain(nyZip);
      expect(r.body.error.message).toContain('CA');
    }
    // The same ZIP in its own state answers.
    expect((await post({ state: 'NY', near: { zip: nyZip, miles: 25 }, limit: 0 })).status).toBe(200);
  });

  it.each([
    [{ lat: 34, lon: -118, miles: 0 }],
    [{ lat: 34, lon: -118, miles: 501 }],
    [{ lat: 134, lon: -118, miles: 5 }],
    [{ zip: 'abcde', miles: 5 }],
    [{ zip: '00000', miles: 5 }],
    [{ zip: '90210' }],
    [{ lat: 34, miles: 5 }],
  ])('%j is a 400 naming "near"', async (near) => {
    const r = await post({ state: 'CA', near });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'near' });
  });
});

describe('bad values', () => {
  it.each([
    ['contact', { phone: 'yes' }],
    ['contact', {}],
    ['contact', 'callable'],
    ['households', 'two'],
    ['households', 1],
    ['sample', { every: 0 }],
    ['sample', { every: 2.5 }],
    ['sample', { size: 10 }],
    ['sample', { size: -1, seed: 1 }],
    ['sample', { every: 2, size: 3, seed: 1 }],
    ['exclude', 'saved:1'],
    ['exclude', ['nope:1']],
    ['exclude', ['list:']],
    ['exclude', Array.from({ length: 33 }, (_, i) => `saved:${i}`)],
  ])('%s = %j is a 400 naming the key, in both operations', async (key, value) => {
    for (const op of ['preview', 'search'] as const) {
      const r = await post({ state: 'CA', [key]: value }, op);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', field: key });
    }
  });
});

describe('the app operations', () => {
  it('count reports the people left after each step', async () => {
    const h = await import('../../src/core/handlers');
    const table = h.createHandlers(api.core, {
      resolveExportPath: async () => null,
      pickImportFiles: async () => ({ files: [], inbox: null }),
      apiStatus: () => ({ url: null, running: false, recent: [] }),
    });
    const answer = await table['audience/count']({
      state: 'CA',
      filters: SEED,
      contact: { phone: 'callable' },
      households: 'one',
      sample: { every: 4 },
    });
    expect(answer.steps).toEqual({
      filtered: oracle.count('CA', SEED),
      matched: oracle.count('CA', SEED),
      afterContact: oracle.listPids('CA', SEED, { phone: true }).length,
      afterExclusions: oracle.listPids('CA', SEED, { phone: true }).length,
      afterHouseholds: oracle.listPids('CA', SEED, { phone: true, oneHousehold: true }).length,
      total: oracle.listPids('CA', SEED, { phone: true, oneHousehold: true, every: 4 }).length,
    });
    expect(answer.total).toBe(answer.steps.total);
  });

  it('cross-tab counts people by two fields exactly as GROUP BY does', async () => {
    const table = await api.core.audiences.crossTab(
      {
        state: 'CA',
        filters: [],
        listControls: {
          near: null,
          contact: { phone: false, mail: false },
          exclude: [],
          include: [],
          like: null,
          households: 'all',
          sample: null,
        },
      },
      'MARRIEDCD',
      'HOMEOWNERC',
    );
    const pairs = oracle.pairCounts('CA', [], 'MARRIEDCD', 'HOMEOWNERC');
    let sum = 0;
    table.rowValues.forEach((r, i) =>
      table.columnValues.forEach((c, j) => {
        expect(table.counts[i]![j], `${r}|${c}`).toBe(pairs.get(`${r}|${c}`) ?? 0);
        sum += table.counts[i]![j]!;
      }),
    );
    expect(sum).toBe(oracle.count('CA'));
    expect(table.total).toBe(oracle.count('CA'));
  });

  it('cross-tab lists coded values in their natural order (income bands from lowest to highest), AGE in its bands', async () => {
    const none = {
      near: null,
      contact: { phone: false, mail: false },
      exclude: [],
      include: [],
      like: null,
      households: 'all' as const,
      sample: null,
    };
    const table = await api.core.audiences.crossTab({ state: 'CA', filters: [], listControls: none }, 'AGE', 'EHI');
    expect(table.columnValues).toEqual([...table.columnValues].sort());
    expect(table.columnValues.length).toBeGreaterThan(5);
    expect(table.rowValues).toEqual(['18-24', '25-34', '35-44', '45-54', '55-64', '65+']);
    const pairs = oracle.pairCounts('CA', [], 'EHI', 'AGE');
    const fromSql = [...pairs].filter(([k]) => k.startsWith(`${table.columnValues[0]}|`)).reduce((n, [, c]) => n + c, 0);
    expect(table.counts.reduce((n, row) => n + row[0]!, 0)).toBe(fromSql);
  });
});
