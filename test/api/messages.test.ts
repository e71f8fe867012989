// Issue 33, the words: what an outside tester found in the error answers of the audience operations,
// over real HTTP against the real server on the shared test dataset. A message quotes at most 40
// characters of anything the caller sent (keys included, and `field` too), and says what is wrong
// with the input it names: never that something is missing when it is there, never that a whole
// number is not one, never a suggestion out of nothing, never "strings" where numbers are accepted.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApi, type ApiHarness } from '../support/apiHarness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
});
afterAll(async () => api.close());

async function refusal(body: unknown, op: 'preview' | 'search' = 'preview'): Promise<{ code: string; message: string; field?: string }> {
  const res = await api.post(`/api/audiences/${op}`, body);
  expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
  return ((await res.json()) as any).error;
}

describe('an unknown top-level key (defect 1)', () => {
  it('is quoted cut to 40 characters, and `field` is the same cut text: the answer stays small', async () => {
    const key = 'x'.repeat(200_000);
    const res = await api.post('/api/audiences/preview', JSON.stringify({ state: 'CA', [key]: 1 }));
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(400);
    const { error } = JSON.parse(text);
    const shown = `${'x'.repeat(40)}…`;
    expect(error).toEqual({
      code: 'invalid_request',
      message: `Unknown request field "${shown}"; the fields are state, filters, near, contact, exclude, include, like, households, sample, limit, skip.`,
      field: shown,
    });
    // A key of 40 characters or fewer is named whole, in the message and in `field`.
    const key40 = 'y'.repeat(40);
    expect(await refusal({ state: 'CA', [key40]: 1 })).toMatchObject({ field: key40, message: expect.stringContaining(`"${key40}"`) });
    expect(await refusal({ state: 'CA', filter: [] })).toMatchObject({ field: 'filter' });
  });

  it('a long unknown key inside an optional key is not echoed, and is not called a request field', async () => {
    const error = await refusal({ state: 'CA', contact: { ['z'.repeat(10_000)]: 'callable' } });
    expect(error.field).toBe('contact');
    expect(error.message).not.toContain('zzzzzzzzzz');
    expect(error.message).not.toContain('Unknown request field');
  });
});

describe('LATITUDE and LONGITUDE (defect 2)', () => {
  it.each(['LATITUDE', 'longitude'])('%s: says to use `near`, not that a geographic filter does not exist', async (name) => {
    for (const values of [['34'], [34], [true]]) {
      const error = await refusal({ state: 'CA', filters: [[name, values]] });
      expect(error.field).toBe(name.toUpperCase());
      expect(error.message).toContain('"near"');
      expect(error.message).not.toMatch(/does not exist/);
    }
  });
});

describe('wording (defect 6)', () => {
  it('a limit or skip past 2^53 - 1 is too large, not "not a whole number"', async () => {
    for (const [key, raw] of [
      ['limit', '9007199254740992'],
      ['skip', '9007199254740993'],
      ['limit', '1e300'],
      ['skip', '1e400'],
    ]) {
      const res = await api.post('/api/audiences/search', `{"state":"CA","${key}":${raw}}`);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as any;
      expect(error.field).toBe(key);
      expect(error.message).toMatch(/too large/);
      expect(error.message).toContain('9007199254740991');
    }
    // Negative and fractional keep their own words.
    expect((await refusal({ state: 'CA', limit: 1.5 })).message).toBe('"limit" must be a whole number of 0 or more.');
    expect((await refusal({ state: 'CA', skip: -1 })).message).toBe('"skip" must be a whole number of 0 or more.');
  });

  it('sample numbers out of range say the range', async () => {
    expect((await refusal({ state: 'CA', sample: { size: 1, seed: 2 ** 53 } })).message).toBe(
      '"sample.seed" must be a whole number from -9007199254740991 to 9007199254740991.',
    );
    expect((await refusal({ state: 'CA', sample: { every: 2 ** 53 } })).message).toBe(
      '"sample.every" must be a whole number from 1 to 9007199254740991.',
    );
  });

  it('a state that is there but not a string is said to be of the wrong type, not missing', async () => {
    for (const [state, kind] of [
      [6, 'a number'],
      [null, 'null'],
      [['CA'], 'an array'],
      [true, 'a boolean'],
    ] as const) {
      const error = await refusal({ state });
      expect(error.field).toBe('state');
      expect(error.message).not.toMatch(/required/);
      expect(error.message).toContain(`must be a string`);
      expect(error.message).toContain(`not ${kind}`);
    }
    expect((await refusal({ limit: 1 })).message).toMatch(/"state" is required/);
  });

  it('an empty or one-letter field name gets no suggestion; a near miss still does', async () => {
    for (const name of ['', 'Q', '1']) {
      const error = await refusal({ state: 'CA', filters: [[name, ['x']]] });
      expect(error.message, name).toMatch(/unknown field/);
      expect(error.message, name).not.toMatch(/did you mean/);
    }
    expect((await refusal({ state: 'CA', filters: [['GENDR', ['F']]] })).message).toMatch(/did you mean GENDER\?/);
  });

  it('filter values of the wrong type: says which types the field takes, and what was sent', async () => {
    const age = await refusal({ state: 'CA', filters: [['AGE', [true]]] });
    expect(age.field).toBe('AGE');
    expect(age.message).toMatch(/strings .*or whole numbers, not a boolean \(true\)/);
    const gender = await refusal({ state: 'CA', filters: [['gender', [null]]] });
    expect(gender.field).toBe('GENDER');
    expect(gender.message).toMatch(/GENDER must be strings, not null/);
    expect(gender.message).not.toMatch(/number/);
    const unknown = await refusal({ state: 'CA', filters: [['NOPE', [{}]]] });
    expect(unknown.message).toMatch(/strings, or for an integer field whole numbers too/);
    const notArray = await refusal({ state: 'CA', filters: [['AGE', '25-29']] });
    expect(notArray.message).toMatch(/array of values: strings .*or whole numbers/);
    // A value nested deeper than JSON.stringify can go is named by its type only (fuzz.test.ts found it).
    const deep = `{"state":"CA","filters":[["AGE",[${'['.repeat(100_000)}${']'.repeat(100_000)}]]]}`;
    const res = await api.post('/api/audiences/search', deep);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toMatch(/whole numbers, not an array\.$/);
  });
});
