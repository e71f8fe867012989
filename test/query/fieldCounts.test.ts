// Counts of many fields at once (groupCountsMany: fieldCounts.ts, fieldCountJob.ts, fieldCountSplit.ts)
// give each field exactly what groupCounts gives it alone, in the same order, on a real generated file:
// for whole states, filtered audiences (listed by their own scan the first time, from the kept
// selection after) and audiences with list controls, on one core and shared with the scan worker (forced
// on for these small states, and seen to have tallied), and again once the worker is stopped. Every
// field a profile may ask is counted, with integer (AGE) and two-byte (ZIP) ones.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Audience, ResolvedControls } from '../../src/core/audience/contract/engine';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { CODEBOOK } from '../../src/shared/codebook';
import { FIELDS, fieldIndex } from '../../src/shared/fields';

type Filters = Array<[string, Array<string | number>]>;

let dir: string;
let split: EmbeddedEngine;
let single: EmbeddedEngine;
/** Every coded field that is not hashed, AGE and ZIP (a two-byte vector), and one field twice. */
let fields: number[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-field-counts-'));
  const path = join(dir, 'd.sqlite');
  generateDataset({ rows: 8000, seed: 21, out: path });
  split = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, scanSplitFrom: 1 });
  single = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, scanSplitFrom: 0 });
  expect(await split.twoCores!.whenRunning()).toBe(true);
  // Small states: this thread would take every field before the worker wakes.
  split.twoCores!.workerFirst = true;
  fields = FIELDS.flatMap((def, index) =>
    (CODEBOOK[def.name] || def.name === 'AGE' || def.name === 'ZIP') && !single.isHashed(index) ? [index] : [],
  );
  fields.push(fieldIndex('GENDER'));
}, 120_000);
afterAll(() => {
  split?.close();
  single?.close();
  rmSync(dir, { recursive: true, force: true });
});

const controls = (over: Partial<ResolvedControls>): ResolvedControls => ({
  near: null,
  contact: { phone: false, mail: false },
  exclusions: [],
  inclusions: [],
  like: null,
  households: 'all',
  sample: null,
  key: JSON.stringify(over),
  ...over,
});

function audiences(state: string): Audience[] {
  const filtered = (filters: Filters): Audience => normalizeAudienceRequest({ state, filters });
  return [
    filtered([]),
    filtered([['GENDER', ['F']]]),
    filtered([
      ['HOMEOWNERC', ['H']],
      ['AGE', ['45+']],
    ]),
    filtered([['EHI', ['Z']]]),
    { ...filtered([['MARRIEDCD', ['M']]]), controls: controls({ households: 'one' }) },
    { ...filtered([]), controls: controls({ sample: { every: 3 } }) },
    { ...filtered([['GENDER', ['M']]]), controls: controls({ sample: { size: 40, seed: 7 } }) },
  ];
}

/** groupCounts a field at a time: what groupCountsMany must give. */
const oneByOne = (engine: EmbeddedEngine, audience: Audience) => fields.map((field) => engine.groupCounts(audience, [field]));

describe('counts of many fields at once', () => {
  it('give every field what groupCounts gives it alone, on one core and on two, for every kind of audience', () => {
    let people = 0;
    for (const state of ['CA', 'TX', 'WY'])
      for (const audience of audiences(state)) {
        const expected = oneByOne(single, audience);
        const label = `${state} ${JSON.stringify(audience.filters)} ${audience.controls?.key ?? ''}`;
        expect(single.groupCountsMany(audience, fields), label).toEqual(expected);
        expect(split.groupCountsMany(audience, fields), label).toEqual(expected);
        people += single.count(audience);
      }
    expect(people).toBeGreaterThan(1000);
    expect(split.twoCores!.jobsDone).toBeGreaterThan(10);
    expect(single.twoCores).toBeNull();
  });

  it('give the same for a few fields: one, two, three, five (one-byte fields are counted four at a time)', () => {
    const names = ['GENDER', 'EHI', 'HOMEOWNERC', 'MARRIEDCD', 'CHILD', 'AGE', 'ZIP'];
    for (const n of [1, 2, 3, 5, 7])
      for (const audience of audiences('CA').slice(0, 5)) {
        const few = names.slice(0, n).map((name) => fieldIndex(name));
        const expected = few.map((field) => single.groupCounts(audience, [field]));
        expect(single.groupCountsMany(audience, few), `${n} fields`).toEqual(expected);
        expect(split.groupCountsMany(audience, few), `${n} fields`).toEqual(expected);
      }
  });

  it('count nobody for an audience of nobody, and answer for no fields at all', () => {
    const nobody = normalizeAudienceRequest({ state: 'CA', filters: [['EHI', ['no such code']]] });
    expect(single.count(nobody)).toBe(0);
    expect(split.groupCountsMany(nobody, fields)).toEqual(fields.map(() => []));
    expect(split.groupCountsMany(normalizeAudienceRequest({ state: 'CA', filters: [] }), [])).toEqual([]);
  });

  it('go on alone, with the same answers, once the worker is stopped', () => {
    split.twoCores!.stop();
    const done = split.twoCores!.jobsDone;
    for (const audience of audiences('CA')) expect(split.groupCountsMany(audience, fields)).toEqual(oneByOne(single, audience));
    expect(split.twoCores!.running).toBe(false);
    expect(split.twoCores!.jobsDone).toBe(done);
  });

  it('refuse a field with no values to count people by, naming it', () => {
    const hashed = FIELDS.findIndex((_, index) => single.isHashed(index));
    expect(() => single.groupCountsMany(normalizeAudienceRequest({ state: 'CA', filters: [] }), [hashed])).toThrow(FIELDS[hashed]!.name);
  });
});
