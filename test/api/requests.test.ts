// decisions.md, "Requests", row by row, over real HTTP against the real server and dataset, with
// the expected totals from an independent SQL oracle.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { startApi, useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import { SqlOracle } from '../support/oracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
});

async function preview(body: unknown) {
  const res = await api.post('/api/audiences/preview', body);
  return { status: res.status, body: (await res.json()) as any };
}
async function search(body: unknown) {
  const res = await api.post('/api/audiences/search', body);
  return { status: res.status, body: (await res.json()) as any };
}

describe('media type and body', () => {
  it('accepts application/json with a charset parameter', async () => {
    const res = await api.post('/api/audiences/preview', { state: 'CA', limit: 0 }, { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
  });
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx'])(
    'refuses %s with 415',
    async (type) => {
      const res = await api.post('/api/audiences/preview', '{"state":"CA"}', { 'content-type': type });
      expect(res.status).toBe(415);
      expect(((await res.json()) as any).error.code).toBe('unsupported_media_type');
    },
  );
  it('refuses a request with no content type with 415', async () => {
    const res = await fetch(api.url + '/api/audiences/preview', {
      method: 'POST',
      headers: { 'x-api-key': api.key },
      body: '{"state":"CA"}',
    });
    expect(res.status).toBe(415);
  });
  it('refuses a body over 256 KiB with 413', async () => {
    const big = JSON.stringify({ state: 'CA', filters: [['LNAME', Array(1000).fill('X'.repeat(270))]] });
    expect(big.length).toBeGreaterThan(256 * 1024);
    const res = await api.post('/api/audiences/preview', big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('payload_too_large');
  });
  it.each(['{"state":', 'not json', '', '[1,2]', '"CA"', 'null', '42'])('answers %j with 400 invalid_json', async (raw) => {
    const res = await api.post('/api/audiences/preview', raw);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('invalid_json');
  });
});

describe('unknown keys, state, limit, skip', () => {
  it('refuses an unknown top-level key, naming it (a typo must not return the whole state)', async () => {
    const r = await preview({ state: 'CA', filter: [['GENDER', ['F']]] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'filter' });
    expect(r.body.error.message).toContain('"filter"');
  });
  it('requires state and refuses unknown codes; accepts any case', async () => {
    expect((await preview({ limit: 1 })).status).toBe(400);
    expect((await preview({ state: 'XX' })).body.error.field).toBe('state');
    const lower = await preview({ state: 'ca', limit: 0 });
    expect(lower.status).toBe(200);
    expect(lower.body.total).toBe(oracle.count('CA'));
  });
  it('answers 200 with total 0 for a valid state that has no records', async () => {
    const tiny = await startApi(inject('tinyDatasetPath'));
    try {
      const tinyOracle = new SqlOracle(inject('tinyDatasetPath'));
      const empty = ['AK', 'WY', 'VT', 'DC', 'ND', 'SD', 'DE', 'RI', 'MT'].find((s) => tinyOracle.count(s) === 0)!;
      tinyOracle.close();
      expect(empty).toBeDefined();
      const res = await tiny.post('/api/audiences/search', { state: empty });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ total: 0, limit: 25, skip: 0, results: [] });
    } finally {
      await tiny.close();
    }
  });
  it('defaults limit to 25 and skip to 0, clamps limit to 1000 and echoes the effective values', async () => {
    const d = await search({ state: 'CA' });
    expect(d.body).toMatchObject({ limit: 25, skip: 0 });
    expect(d.body.results).toHaveLength(25);
    const c = await search({ state: 'CA', limit: 5000, skip: 1 });
    expect(c.body).toMatchObject({ limit: 1000, skip: 1 });
    expect(c.body.results).toHaveLength(Math.min(1000, oracle.count('CA') - 1));
  });
  it('limit 0 is a pure count', async () => {
    const r = await search({ state: 'TX', limit: 0, filters: [['GENDER', ['F']]] });
    expect(r.body).toEqual({ total: oracle.count('TX', [['GENDER', ['F']]]), limit: 0, skip: 0, results: [] });
  });
  it.each([[-1], [2.5], ['10'], [null], [true]])('refuses limit %j and skip %j', async (bad) => {
    expect((await preview({ state: 'CA', limit: bad })).body.error).toMatchObject({ code: 'invalid_request', field: 'limit' });
    expect((await preview({ state: 'CA', skip: bad })).body.error).toMatchObject({ code: 'invalid_request', field: 'skip' });
  });
  it('skip at or past total gives empty results with the true total', async () => {
    const total = oracle.count('NY');
    for (const skip of [total, total + 1, 10 ** 12]) {
      const r = await search({ state: 'NY', skip });
      expect(r.body).toMatchObject({ total, skip, results: [] });
    }
  });
});

describe('filters', () => {
  it('defaults to no filters: the whole state', async () => {
    expect((await preview({ state: 'FL', limit: 0 })).body.total).toBe(oracle.count('FL'));
    expect((await preview({ state: 'FL', limit: 0, filters: [] })).body.total).toBe(oracle.count('FL'));
  });
  it('refuses more than 64 entries, malformed entries and value lists out of bounds', async () => {
    for (const filters of [
      Array(65).fill(['GENDER', ['F']]),
      [['GENDER']],
      [['GENDER', 'F']],
      [['GENDER', []]],
      [['GENDER', Array(1001).fill('F')]],
      [[1, ['F']]],
      'GENDER',
    ])
      expect((await preview({ state: 'CA', filters })).body.error.code).toBe('invalid_request');
    expect((await preview({ state: 'CA', limit: 0, filters: Array(64).fill(['GENDER', ['F']]) })).status).toBe(200);
  });
  it('takes field names in any case and names an unknown one with the closest known name', async () => {
    expect((await preview({ state: 'CA', limit: 0, filters: [['gender', ['f']]] })).body.total).toBe(
      oracle.count('CA', [['GENDER', ['F']]]),
    );
    const r = await preview({ state: 'CA', filters: [['MARIEDCD', ['M']]] });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/MARIEDCD.*MARRIEDCD/);
  });
  it('ANDs entries, ORs values within one entry, and ANDs two entries on the same field', async () => {
    const cases: Array<Array<[string, Array<string | number>]>> = [
      [
        ['GENDER', ['F']],
        ['MARRIEDCD', ['M']],
        ['AGE', ['25-29', '45-49']],
      ],
      [['GENDER', ['F', 'M']]],
      [
        ['AGE', ['20-40']],
        ['AGE', ['35-60']],
      ],
      [
        ['AGE', ['30-39']],
        ['AGE', ['50-59']],
      ],
      [
        ['CPI_TRAVEL_INDEX', ['5-9']],
        ['MS_BOOKS', ['1+']],
        ['CT_STRMSUB_SVC1', ['Y']],
      ],
      [
        ['HOMEOWNERC', oracle.distinct('CA', 'HOMEOWNERC').slice(0, 2) as string[]],
        ['LOR', ['3+']],
      ],
    ];
    for (const filters of cases) {
      const r = await preview({ state: 'CA', limit: 0, filters });
      expect(r.status, JSON.stringify(filters)).toBe(200);
      expect(r.body.total, JSON.stringify(filters)).toBe(oracle.count('CA', filters));
    }
    expect(
      (
        await preview({
          state: 'CA',
          limit: 0,
          filters: [
            ['AGE', ['30-39']],
            ['AGE', ['50-59']],
          ],
        })
      ).body.total,
    ).toBe(0);
  });
  it('matches string fields after upper-casing, and "" matches empty fields', async () => {
    const city = oracle.distinct('CA', 'CITY')[0] as string;
    expect((await preview({ state: 'CA', limit: 0, filters: [['CITY', [city.toLowerCase()]]] })).body.total).toBe(
      oracle.count('CA', [['CITY', [city]]]),
    );
    const emptyCount = oracle.count('CA', [['PHONE2', ['']]]);
    expect(emptyCount).toBeGreaterThan(0);
    expect((await preview({ state: 'CA', limit: 0, filters: [['PHONE2', ['']]] })).body.total).toBe(emptyCount);
    expect((await preview({ state: 'CA', limit: 0, filters: [['CITY', ['NO SUCH CITY']]] })).body.total).toBe(0);
  });
  it('reads integer values as N, LO-HI and N+, numbers too', async () => {
    for (const values of [['30'], [30], ['25-29'], ['65+'], ['18-24', '65+'], [40, '41-42']]) {
      const r = await preview({ state: 'TX', limit: 0, filters: [['AGE', values]] });
      expect(r.body.total, JSON.stringify(values)).toBe(oracle.count('TX', [['AGE', values]]));
    }
  });
  it.each(['30-20', 'abc', '2.5', '-3', '1e3', ''])('refuses the integer value %j naming it', async (v) => {
    const r = await preview({ state: 'TX', filters: [['AGE', [v]]] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'AGE' });
    expect(r.body.error.message).toContain(JSON.stringify(v));
  });
  it('refuses equality filters on LATITUDE and LONGITUDE with a clear message', async () => {
    for (const f of ['LATITUDE', 'longitude']) {
      const r = await preview({ state: 'CA', filters: [[f, ['34']]] });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/use the "near" key/);
    }
  });
});
