// The request rules of decisions.md, checked on the pure normalizer (the API tests check them again
// over HTTP).
import { describe, expect, it } from 'vitest';
import { audienceKey, closestFieldName, normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { AppError } from '../../src/shared/errors';

function failure(body: unknown): AppError {
  try {
    normalizeAudienceRequest(body);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('normalizeAudienceRequest', () => {
  it('applies the defaults and upper-cases state and string values', () => {
    expect(normalizeAudienceRequest({ state: 'ca', filters: [['gender', ['f']]] })).toEqual({
      state: 'CA',
      limit: 25,
      skip: 0,
      filters: [{ field: 'GENDER', index: 6, kind: 'string', values: ['F'] }],
      // No list controls asked for: the defaults of extensions.md, which change nothing.
      listControls: {
        near: null,
        contact: { phone: false, mail: false },
        exclude: [],
        include: [],
        like: null,
        households: 'all',
        sample: null,
      },
    });
  });

  it('clamps limit to 1000 and keeps limit 0', () => {
    expect(normalizeAudienceRequest({ state: 'TX', limit: 5000 }).limit).toBe(1000);
    expect(normalizeAudienceRequest({ state: 'TX', limit: 0 }).limit).toBe(0);
  });

  it.each([
    [{ state: 'CA', filter: [] }, 'invalid_request', 'filter'],
    [{}, 'invalid_request', 'state'],
    [{ state: 'ZZ' }, 'invalid_request', 'state'],
    [{ state: 7 }, 'invalid_request', 'state'],
    [{ state: 'CA', limit: -1 }, 'invalid_request', 'limit'],
    [{ state: 'CA', limit: 2.5 }, 'invalid_request', 'limit'],
    [{ state: 'CA', limit: '10' }, 'invalid_request', 'limit'],
    [{ state: 'CA', skip: -3 }, 'invalid_request', 'skip'],
    [{ state: 'CA', skip: 1e300 }, 'invalid_request', 'skip'],
    [[1, 2], 'invalid_json', undefined],
    ['text', 'invalid_json', undefined],
    [null, 'invalid_json', undefined],
  ])('refuses %j with %s naming %s', (body, code, field) => {
    const e = failure(body);
    expect(e.code).toBe(code);
    expect(e.field).toBe(field);
    expect(e.message.length).toBeGreaterThan(10);
  });

  it('refuses malformed filters with a message naming the problem', () => {
    expect(failure({ state: 'CA', filters: [['GENDER']] }).message).toMatch(/Filter 1/);
    expect(failure({ state: 'CA', filters: [['GENDER', []]] }).message).toMatch(/between 1 and 1000/);
    expect(failure({ state: 'CA', filters: [['GENDER', Array(1001).fill('F')]] }).message).toMatch(/1000/);
    expect(failure({ state: 'CA', filters: Array(65).fill(['GENDER', ['F']]) }).message).toMatch(/64/);
    expect(failure({ state: 'CA', filters: [['GENDR', ['F']]] }).message).toMatch(/unknown field "GENDR".*GENDER/);
    expect(failure({ state: 'CA', filters: [['LATITUDE', ['34']]] }).message).toMatch(/use the "near" key/);
    expect(failure({ state: 'CA', filters: [['ZIP', [90210]]] }).message).toMatch(/strings/);
  });

  it('reads integer values as N, LO-HI and N+ and refuses anything else', () => {
    const a = normalizeAudienceRequest({ state: 'CA', filters: [['AGE', ['25-29', '65+', 40, '33']]] });
    expect(a.filters[0]).toEqual({
      field: 'AGE',
      index: 7,
      kind: 'integer',
      bands: [
        { lo: 25, hi: 29 },
        { lo: 65, hi: Infinity },
        { lo: 40, hi: 40 },
        { lo: 33, hi: 33 },
      ],
    });
    for (const bad of ['30-20', 'abc', '-5', '2.5', '1-2-3', '', ' 5', 2.5, -1])
      expect(failure({ state: 'CA', filters: [['AGE', [bad]]] }).field).toBe('AGE');
  });

  it('suggests the closest field name only when it is close', () => {
    expect(closestFieldName('MARIEDCD')).toBe('MARRIEDCD');
    expect(closestFieldName('cpi_travl_index')).toBe('CPI_TRAVEL_INDEX');
    expect(closestFieldName('ZZZZZZZZZZZZZZZZZZ')).toBeUndefined();
    // Nothing, or a single letter, is no typo of anything (Z4 is 2 edits from "").
    for (const name of ['', 'Z', 'q', '4']) expect(closestFieldName(name), name).toBeUndefined();
    expect(closestFieldName('AG')).toBe('AGE');
  });

  it('says what is wrong with a value that is there (issue 33)', () => {
    expect(failure({ state: 6 }).message).toMatch(/"state" must be a string .*not a number/);
    expect(failure({ state: 'CA', limit: 2 ** 53 }).message).toMatch(/"limit" is too large/);
    expect(failure({ state: 'CA', filters: [['AGE', [true]]] })).toMatchObject({
      field: 'AGE',
      message: expect.stringMatching(/whole numbers/),
    });
    const long = failure({ state: 'CA', ['k'.repeat(1000)]: 1 });
    expect(long.field).toBe(`${'k'.repeat(40)}…`);
    expect(long.message.length).toBeLessThan(200);
  });

  it('gives the same cache key whatever the order of filters and values', () => {
    const a = normalizeAudienceRequest({
      state: 'ca',
      filters: [
        ['GENDER', ['M', 'F']],
        ['AGE', ['20-24', '65+']],
      ],
    });
    const b = normalizeAudienceRequest({
      state: 'CA',
      filters: [
        ['AGE', ['65+', '20-24']],
        ['gender', ['f', 'm']],
      ],
    });
    expect(audienceKey(a)).toBe(audienceKey(b));
    const c = normalizeAudienceRequest({
      state: 'CA',
      filters: [
        ['AGE', ['65+']],
        ['gender', ['f', 'm']],
      ],
    });
    expect(audienceKey(c)).not.toBe(audienceKey(a));
  });
});
