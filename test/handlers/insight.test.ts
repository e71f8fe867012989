// The app's insight operations through the handler table (what IPC and browser mode carry): a profile
// over several states adds up as each state's does, overlap regions against set arithmetic on the
// oracle's people, and a lookalike model's quality (lift by decile on a held-out part of the seed,
// the traits in words) for a seed whose trait the test knows.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { overlapCsv } from '../../src/shared/overlap';
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

const TRAIT: Array<[string, string[]]> = [
  ['EHI', ['G', 'H', 'I', 'J', 'K', 'L']],
  ['HOMEOWNERC', ['H']],
  ['AGE', ['45+']],
];

describe('insight operations', () => {
  it('a profile of several states adds up each state’s counts and bases', async () => {
    const both = await t.h['audience/profile']({ state: 'CA', states: ['TX', 'CA'], filters: [['GENDER', ['F']]], fields: ['EHI', 'AGE'] });
    const ca = await t.h['audience/profile']({ state: 'CA', filters: [['GENDER', ['F']]], fields: ['EHI', 'AGE'] });
    const tx = await t.h['audience/profile']({ state: 'TX', filters: [['GENDER', ['F']]], fields: ['EHI', 'AGE'] });
    expect(both.total).toBe(oracle.count('CA', [['GENDER', ['F']]]) + oracle.count('TX', [['GENDER', ['F']]]));
    expect(both.base.total).toBe(oracle.count('CA') + oracle.count('TX'));
    for (const [f, field] of both.fields.entries())
      for (const value of field.values) {
        const count = (answer: typeof ca) => answer.fields[f]!.values.find((v) => v.code === value.code)?.count ?? 0;
        expect(value.count, `${field.name} ${value.code}`).toBe(count(ca) + count(tx));
      }
    expect(await failure(t.h['audience/profile']({ state: 'CA', fields: ['PHONE'] }))).toMatchObject({ field: 'fields' });
  });

  it('overlap regions and pairs are set arithmetic on the people; the CSV holds the matrix and every region', async () => {
    const a = (await t.h['audiences/save']({ name: 'married', state: 'OH', filters: [['MARRIEDCD', ['M']]] })).id;
    const b = (await t.h['audiences/save']({ name: 'owners', state: 'OH', filters: [['HOMEOWNERC', ['H']]] })).id;
    const answer = await t.h['audience/overlap']({ state: 'oh', sets: [`saved:${a}`, `saved:${b}`] });
    const married = new Set(oracle.pids('OH', [['MARRIEDCD', ['M']]]));
    const owners = new Set(oracle.pids('OH', [['HOMEOWNERC', ['H']]]));
    const everyone = oracle.pids('OH');
    const count = (keep: (p: string) => boolean) => everyone.filter(keep).length;
    expect(answer.regions).toEqual([
      { in: [0], count: count((p) => married.has(p) && !owners.has(p)) },
      { in: [1], count: count((p) => !married.has(p) && owners.has(p)) },
      { in: [0, 1], count: count((p) => married.has(p) && owners.has(p)) },
    ]);
    expect(answer.pairs).toEqual([
      [married.size, answer.regions[2]!.count],
      [answer.regions[2]!.count, owners.size],
    ]);
    expect(answer.sets).toEqual([
      { ref: `saved:${a}`, total: married.size },
      { ref: `saved:${b}`, total: owners.size },
    ]);
    const csv = overlapCsv(answer, ['married', 'owners']).split('\r\n');
    expect(csv.slice(0, 3)).toEqual([
      ',married,owners',
      `married,${married.size},${answer.regions[2]!.count}`,
      `owners,${answer.regions[2]!.count},${owners.size}`,
    ]);
    expect(csv.slice(4, 8)).toEqual([
      'married,owners,people',
      `1,0,${answer.regions[0]!.count}`,
      `0,1,${answer.regions[1]!.count}`,
      `1,1,${answer.regions[2]!.count}`,
    ]);
    for (const sets of [
      [`saved:${a}`],
      [`saved:${a}`, 'saved:999999'],
      [`saved:${a}`, 'nope'],
      Array(6)
        .fill(`saved:${a}`)
        .map((s, k) => `${s}${k}`),
    ])
      expect(await failure(t.h['audience/overlap']({ state: 'OH', sets }))).toMatchObject({ code: 'invalid_request', field: 'sets' });
  });

  it('a lookalike model of a seed with a known trait lifts the first decile, and says its traits in words', async () => {
    const seed = (await t.h['audiences/save']({ name: 'trait', state: 'CA', filters: TRAIT })).id;
    const quality = await t.h['audience/likeQuality']({ state: 'CA', seed: `saved:${seed}` });
    const size = oracle.count('CA', TRAIT);
    expect(quality.seedCount).toBe(size);
    expect(quality.heldOut).toBe(Math.ceil(size / 5));
    expect(quality.deciles.map((d) => d.decile)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(quality.deciles.reduce((n, d) => n + d.heldOut, 0)).toBe(quality.heldOut);
    expect(quality.deciles[0]!.lift).toBeGreaterThan(3);
    expect(quality.deciles[0]!.lift).toBeGreaterThan(quality.deciles[9]!.lift);
    expect(quality.traits.length).toBeGreaterThan(0);
    expect(quality.traits.map((x) => x.field)).toEqual(expect.arrayContaining(['HOMEOWNERC']));
    for (const trait of quality.traits) expect(trait.words).toContain(trait.label);
    expect(await failure(t.h['audience/likeQuality']({ state: 'CA', seed: 'saved:999999' }))).toMatchObject({ field: 'seed' });
  });
});
