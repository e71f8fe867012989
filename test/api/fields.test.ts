// GET /api/fields over real HTTP: the data dictionary of extensions.md ("The data dictionary"), with a
// key like the operations, every record field in catalog order with exactly the documented keys.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CODEBOOK } from '../../src/shared/codebook';
import { DATA_DICTIONARY } from '../../src/shared/dictionary';
import { FIELD_NAMES } from '../../src/shared/fields';
import { startApi, type ApiHarness } from '../support/apiHarness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
});
afterAll(async () => {
  await api.close();
});

const getFields = (headers: Record<string, string> = {}) => fetch(api.url + '/api/fields', { headers });

describe('GET /api/fields', () => {
  it('answers 200 with a key: every field in catalog order, with exactly the keys of extensions.md', async () => {
    const res = await getFields({ 'x-api-key': api.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await res.json()) as { fields: Array<Record<string, unknown>> };
    expect(Object.keys(body)).toEqual(['fields']);
    expect(body.fields).toHaveLength(392);
    expect(body.fields.map((f) => f.name)).toEqual(FIELD_NAMES);
    for (const entry of body.fields) {
      expect(Object.keys(entry).sort()).toEqual(['description', 'group', 'label', 'name', 'type', 'values']);
      expect(entry.label).not.toBe(entry.name);
      expect(entry.values).toEqual(CODEBOOK[entry.name as string] ?? null);
    }
    const ehi = body.fields.find((f) => f.name === 'EHI')!;
    expect(ehi).toMatchObject({ label: 'Estimated household income', group: 'Income and wealth', type: 'string' });
    expect((ehi.values as Array<{ code: string; label: string }>)[0]).toEqual({ code: 'A', label: 'Under $15,000' });
    expect(body.fields.find((f) => f.name === 'FNAME')!.values).toBeNull();
    expect(body.fields.map((f) => f.label)).toEqual(DATA_DICTIONARY.map((e) => e.label));
  });

  it('answers a GET without a Content-Type (it has no body) and ignores one that is not JSON', async () => {
    expect((await getFields({ 'x-api-key': api.key, 'content-type': 'text/plain' })).status).toBe(200);
  });

  it('answers 401 without a key or with an unknown one, in the error envelope', async () => {
    for (const headers of [{}, { 'x-api-key': 'adk_nope' }] as Array<Record<string, string>>) {
      const res = await getFields(headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.code).toBe('unauthorized');
    }
  });

  it('answers 405 with Allow: GET for other methods', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(api.url + '/api/fields', { method, headers: { 'x-api-key': api.key } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET');
    }
  });

  it('is rate limited per key like the operations', async () => {
    const limited = await startApi(inject('datasetPath'), { rateLimit: { perSecond: 1, burst: 2 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await fetch(limited.url + '/api/fields', { headers: { 'x-api-key': limited.key } })).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});
