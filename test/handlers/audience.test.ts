// The read operations through the handler table against the real core, checked against an
// independent SQL oracle over the same dataset file.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AGE_BANDS } from '../../src/shared/ageBands';
import { FIELD_NAMES } from '../../src/shared/fields';
import { SqlOracle } from '../support/oracle';
import { failure, startHandlers, type HandlerHarness } from './harness';

let t: HandlerHarness;
let oracle: SqlOracle;
beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'));
  oracle = new SqlOracle(inject('datasetPath'));
});
afterAll(async () => {
  oracle.close();
  await t.close();
});

const F = [
  ['GENDER', ['F']],
  ['AGE', ['25-54']],
] as [string, string[]][];

describe('dataset/info', () => {
  it('describes the open dataset', async () => {
    const info = await t.h['dataset/info']({});
    expect(info.path).toBe(inject('datasetPath'));
    expect(info.records).toBe(inject('testRows'));
    expect(info.states.reduce((n, s) => n + s.count, 0)).toBe(inject('testRows'));
    expect(info.states.map((s) => s.state)).toEqual([...info.states.map((s) => s.state)].sort());
    expect(info.states.find((s) => s.state === 'CA')!.count).toBe(oracle.count('CA'));
    expect(typeof info.createdAt).toBe('string');
  });
});

describe('audience/count and audience/preview', () => {
  it('counts exactly, with the time taken', async () => {
    const r = await t.h['audience/count']({ state: 'ca', filters: F });
    expect(r.total).toBe(oracle.count('CA', F));
    expect(r.ms).toBeGreaterThanOrEqual(0);
    expect((await t.h['audience/count']({ state: 'TX', filters: [] })).total).toBe(oracle.count('TX'));
  });

  it('previews the first page in PID order', async () => {
    const r = await t.h['audience/preview']({ state: 'CA', filters: F, limit: 7, skip: 3 });
    expect(r.total).toBe(oracle.count('CA', F));
    expect(r.results.map((x) => x.pid)).toEqual(oracle.pids('CA', F, 7, 3));
    expect(Object.keys(r.results[0]!)).toEqual(['pid', 'fname', 'lname', 'city', 'state']);
    expect(typeof r.ms).toBe('number');
  });
});

describe('audience/search', () => {
  it('returns full records as objects in catalog order, equal to the oracle', async () => {
    const r = await t.h['audience/search']({ state: 'NY', filters: [['GENDER', ['M']]], limit: 5, skip: 0 });
    expect(r).toMatchObject({ total: oracle.count('NY', [['GENDER', ['M']]]), limit: 5, skip: 0 });
    expect(r.results).toHaveLength(5);
    expect(Object.keys(r.results[0]!)).toEqual(FIELD_NAMES);
    expect(r.results).toEqual(oracle.records('NY', [['GENDER', ['M']]], 5, 0));
  });

  it('clamps the limit like the API', async () => {
    expect((await t.h['audience/search']({ state: 'CA', filters: [], limit: 5000 })).limit).toBe(1000);
  });
});

describe('audience/breakdown', () => {
  it('gives AGE in the standard bands, in age order, each a valid AGE filter', async () => {
    const r = await t.h['audience/breakdown']({ state: 'CA', filters: [['GENDER', ['F']]], field: 'age' });
    expect(r.field).toBe('AGE');
    expect(r.total).toBe(oracle.count('CA', [['GENDER', ['F']]]));
    const labels = r.values.map((v) => v.value);
    expect(labels.filter((l) => l !== '0-17')).toEqual(['18-24', '25-34', '35-44', '45-54', '55-64', '65+']);
    expect(r.values.reduce((n, v) => n + v.count, 0)).toBe(r.total);
    for (const v of r.values) {
      expect(v.count).toBe(
        oracle.count('CA', [
          ['GENDER', ['F']],
          ['AGE', [String(v.value)]],
        ]),
      );
    }
    expect(AGE_BANDS.at(-1)!.label).toBe('65+');
  });

  it('gives other integer fields by exact value, in value order', async () => {
    const r = await t.h['audience/breakdown']({ state: 'CA', filters: [], field: 'LOR', max: 1000 });
    const values = r.values.map((v) => v.value as number);
    expect(values.every((v) => typeof v === 'number')).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(r.values.reduce((n, v) => n + v.count, 0)).toBe(oracle.count('CA'));
    for (const v of r.values.slice(0, 3)) expect(v.count).toBe(oracle.count('CA', [['LOR', [String(v.value)]]]));
  });

  it('gives string fields most frequent first, at most `max`', async () => {
    const r = await t.h['audience/breakdown']({ state: 'TX', filters: [], field: 'CITY', max: 5 });
    expect(r.values.length).toBeLessThanOrEqual(5);
    const counts = r.values.map((v) => v.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(r.values[0]!.count).toBe(oracle.count('TX', [['CITY', [String(r.values[0]!.value)]]]));
  });

  it('gives coded fields in their natural order: income bands from lowest to highest', async () => {
    const r = await t.h['audience/breakdown']({ state: 'CA', filters: [], field: 'EHI' });
    const codes = r.values.map((v) => String(v.value));
    expect(codes.length).toBeGreaterThan(8);
    expect(codes).toEqual([...codes].sort());
    for (const v of r.values) expect(v.count).toBe(oracle.count('CA', [['EHI', [String(v.value)]]]));
  });

  it('refuses unknown fields (with a suggestion) and coordinates', async () => {
    const e = await failure(t.h['audience/breakdown']({ state: 'CA', filters: [], field: 'GENDR' }));
    expect(e).toMatchObject({ code: 'invalid_request', field: 'field' });
    expect(e.message).toMatch(/GENDER/);
    expect(await failure(t.h['audience/breakdown']({ state: 'CA', filters: [], field: 'LATITUDE' }))).toMatchObject({
      code: 'invalid_request',
    });
    expect(await failure(t.h['audience/breakdown']({ state: 'CA', filters: [], field: 'AGE', max: 0 }))).toMatchObject({
      code: 'invalid_request',
      field: 'max',
    });
  });
});
