// POST /api/audiences/profile (extensions.md, docs/insight.md) against an independent oracle: plain
// SQL GROUP BY over the dataset file's records, for audiences with filters and list controls (the
// audience's people taken from full pages of preview, so the profile counts exactly who is paged),
// the default fields, AGE bands, and a 400 naming a field that is not coded.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROFILE_DEFAULT_FIELDS } from '../../src/shared/profile';
import { useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import type { SqlOracle } from '../support/oracle';
import { ProfileOracle } from '../support/profileOracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
let profiles: ProfileOracle;
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
  profiles = new ProfileOracle(inject('datasetPath'));
});
afterAll(() => profiles?.close());

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await api.post(path, body);
  return { status: r.status, body: await r.json() };
}

async function allPids(request: Record<string, unknown>): Promise<string[]> {
  const pids: string[] = [];
  for (let skip = 0; ; skip += 1000) {
    const page = await post('/api/audiences/preview', { ...request, limit: 1000, skip });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    pids.push(...page.body.results.map((r: { pid: string }) => r.pid));
    if (pids.length >= page.body.total) return pids;
  }
}

/** The profile answer against the oracle's, field by field and value by value. */
async function expectProfile(request: Record<string, unknown>, fields: string[]): Promise<void> {
  const state = String(request.state).toUpperCase();
  const pids = await allPids(request);
  const { status, body } = await post('/api/audiences/profile', { ...request, fields });
  expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
  const expected = profiles.profile(state, pids, fields);
  expect(body.total).toBe(expected.total);
  expect(body.base).toEqual({ total: expected.baseTotal });
  expect(body.fields.map((f: { name: string }) => f.name)).toEqual(fields);
  for (const field of body.fields) {
    const got = field.values.map(({ code, count, share, baseCount, baseShare, index }: any) => ({
      code,
      count,
      share,
      baseCount,
      baseShare,
      index,
    }));
    expect(got, field.name).toEqual(expected.fields.get(field.name));
    expect(typeof field.label).toBe('string');
    expect(field.label).not.toBe(field.name);
  }
}

const FIELDS = ['GENDER', 'EHI', 'HOMEOWNERC', 'MARRIEDCD', 'AGE', 'DWELLTYPE', 'POOL'];

describe('profile', () => {
  it('of a filtered audience matches plain SQL, codes in natural order, AGE in its bands', async () => {
    await expectProfile(
      {
        state: 'CA',
        filters: [
          ['GENDER', ['F']],
          ['AGE', ['25-54']],
        ],
      },
      FIELDS,
    );
    await expectProfile({ state: 'wy', filters: [] }, ['AGE', 'EHI']);
  });

  it('of audiences with list controls (contact, include, exclude, households, sample) matches plain SQL over their pages', async () => {
    const owners = api.core.savedAudiences.save({ name: 'owners TX', state: 'TX', filters: [['HOMEOWNERC', ['H']]] });
    const married = api.core.savedAudiences.save({ name: 'married TX', state: 'TX', filters: [['MARRIEDCD', ['M']]] });
    await expectProfile({ state: 'TX', contact: { phone: 'callable' }, include: [`saved:${owners.id}`] }, FIELDS);
    await expectProfile({ state: 'TX', filters: [['AGE', ['40+']]], exclude: [`saved:${married.id}`], households: 'one' }, FIELDS);
    await expectProfile({ state: 'TX', include: [`saved:${owners.id}`], sample: { size: 300, seed: 5 } }, FIELDS);
  });

  it('defaults to every coded field in catalog order; an empty audience has zero counts', async () => {
    const { body } = await post('/api/audiences/profile', { state: 'NY', filters: [['FNAME', ['NOBODY-AT-ALL']]] });
    expect(body.total).toBe(0);
    expect(body.base.total).toBe(oracle.count('NY'));
    expect(body.fields.map((f: { name: string }) => f.name)).toEqual(PROFILE_DEFAULT_FIELDS);
    expect(body.fields.length).toBeGreaterThan(90);
    for (const f of body.fields)
      for (const v of f.values) expect(v).toMatchObject({ count: 0, share: 0, index: v.baseShare === 0 ? null : 0 });
    const full = await post('/api/audiences/profile', { state: 'NY' });
    const ehi = full.body.fields.find((f: { name: string }) => f.name === 'EHI');
    expect(ehi.values.every((v: { index: number }) => v.index === 100)).toBe(true);
    expect(ehi.values[0]).toMatchObject({ code: 'A', label: 'Under $15,000' });
  });

  it('refuses a field that is not coded, limit and skip, and bad list controls, naming them', async () => {
    for (const [body, field] of [
      [{ state: 'CA', fields: ['FNAME'] }, 'fields'],
      [{ state: 'CA', fields: ['LATITUDE'] }, 'fields'],
      [{ state: 'CA', fields: ['NOPE'] }, 'fields'],
      [{ state: 'CA', fields: [] }, 'fields'],
      [{ state: 'CA', limit: 5 }, 'limit'],
      [{ state: 'CA', include: ['saved:999999'] }, 'include'],
      [{ state: 'ZZ' }, 'state'],
    ] as const) {
      const answer = await post('/api/audiences/profile', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', field });
    }
    const named = await post('/api/audiences/profile', { state: 'CA', fields: ['EHI', 'fname'] });
    expect(named.body.error.message).toContain('fname');
  });
});
