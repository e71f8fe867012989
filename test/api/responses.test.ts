// decisions.md, "Responses": order, shapes, types and headers, over real HTTP.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { FIELDS, FIELD_NAMES } from '../../src/shared/fields';
import { useApiWithOracle, type ApiHarness } from '../support/apiHarness';
import type { SqlOracle } from '../support/oracle';

const harness = useApiWithOracle(() => inject('datasetPath'));
let api: ApiHarness;
let oracle: SqlOracle;
beforeAll(() => {
  api = harness.api();
  oracle = harness.oracle();
});

const FILTERS: Array<[string, string[]]> = [
  ['GENDER', ['F']],
  ['AGE', ['35-64']],
];

describe('responses', () => {
  it('preview: exactly total and results; each result exactly pid, fname, lname, city, state; ascending PID', async () => {
    const res = await api.post('/api/audiences/preview', { state: 'CA', limit: 200, filters: FILTERS });
    const body = (await res.json()) as any;
    expect(Object.keys(body)).toEqual(['total', 'results']);
    expect(body.total).toBe(oracle.count('CA', FILTERS));
    expect(body.results.map((r: any) => r.pid)).toEqual(oracle.pids('CA', FILTERS, 200));
    for (const r of body.results) {
      expect(Object.keys(r)).toEqual(['pid', 'fname', 'lname', 'city', 'state']);
      expect(r.pid).toMatch(/^[0-9A-F]{32}$/);
      expect(r.state).toBe('CA');
      for (const k of ['fname', 'lname', 'city']) expect(r[k]).toBe(r[k].toUpperCase());
    }
  });

  it('search: total, limit, skip, results; every field in catalog order with its JSON type, equal to the stored record', async () => {
    const res = await api.post('/api/audiences/search', { state: 'TX', limit: 50, skip: 10, filters: FILTERS });
    const body = (await res.json()) as any;
    expect(Object.keys(body)).toEqual(['total', 'limit', 'skip', 'results']);
    expect(body).toMatchObject({ total: oracle.count('TX', FILTERS), limit: 50, skip: 10 });
    expect(body.results).toEqual(oracle.records('TX', FILTERS, 50, 10));
    for (const record of body.results) {
      expect(Object.keys(record)).toEqual(FIELD_NAMES);
      FIELDS.forEach((f) => {
        const v = record[f.name];
        if (f.type === 'string') expect(typeof v, f.name).toBe('string');
        else if (f.type === 'integer') expect(Number.isInteger(v), f.name).toBe(true);
        else expect(typeof v === 'number' && Number.isFinite(v), f.name).toBe(true);
      });
    }
  });

  it('both operations return the same people in the same order', async () => {
    const p = (await (await api.post('/api/audiences/preview', { state: 'OH', limit: 300, filters: FILTERS })).json()) as any;
    const s = (await (await api.post('/api/audiences/search', { state: 'OH', limit: 300, filters: FILTERS })).json()) as any;
    expect(p.total).toBe(s.total);
    expect(p.results.map((r: any) => r.pid)).toEqual(s.results.map((r: any) => r.PID));
    expect(p.results.map((r: any) => [r.fname, r.lname, r.city, r.state])).toEqual(
      s.results.map((r: any) => [r.FNAME, r.LNAME, r.CITY, r.STATE]),
    );
  });

  it('sends JSON with charset, Cache-Control: no-store and no CORS headers', async () => {
    for (const path of ['/api/audiences/preview', '/api/audiences/search']) {
      const res = await api.post(path, { state: 'CA', limit: 1 });
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('health and openapi answer without a key', async () => {
    const health = await fetch(api.url + '/api/health');
    expect(await health.json()).toEqual({ status: 'ok', records: inject('testRows') });
    const doc = (await (await fetch(api.url + '/api/openapi.json')).json()) as any;
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/audiences/preview', '/api/audiences/search']));
    expect(doc.components.schemas.SearchRecord.required).toEqual(FIELD_NAMES);
  });
});
