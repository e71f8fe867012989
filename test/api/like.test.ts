// `like` over HTTP (extensions.md, docs/insight.md): a seed of people who share a trait the test knows
// (high income, homeowner, 45 or older) and the model is not told; the lookalikes of the whole state,
// asked without filters, hold that trait far more often than the rest of the state. The answer is
// the same twice, never holds the seed's people, pages like any audience, comes after include and
// exclude and before households and the sample, and a small or unknown seed is a 400 naming `like`.
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
const TRAIT: Filters = [
  ['EHI', ['G', 'H', 'I', 'J', 'K', 'L']],
  ['HOMEOWNERC', ['H']],
  ['AGE', ['45+']],
];

describe('like', () => {
  it('finds people who share a trait the seed shares and the model is not told; never the seed; the same twice', async () => {
    const holders = oracle.pids('CA', TRAIT);
    // A third of the trait's holders are the seed; the other two thirds are left to be found.
    const saved = api.core.savedAudiences.save({ name: 'best customers', state: 'CA', filters: TRAIT, sample: { every: 3 } });
    const seed = new Set(oracle.listPids('CA', TRAIT, { every: 3 }));
    expect(seed.size).toBeGreaterThanOrEqual(30);
    const everyone = oracle.pids('CA');
    const top = Math.round(everyone.length * 0.05);
    const request = { state: 'CA', like: { seed: `saved:${saved.id}`, top } };
    const found = await allPids(request);
    expect(found).toHaveLength(top);
    expect(found.filter((pid) => seed.has(pid))).toEqual([]);
    expect(await allPids(request)).toEqual(found);
    const trait = new Set(holders);
    const inTop = found.filter((pid) => trait.has(pid)).length / found.length;
    const chosen = new Set(found);
    const rest = everyone.filter((pid) => !chosen.has(pid));
    const inRest = rest.filter((pid) => trait.has(pid)).length / rest.length;
    expect(inRest).toBeGreaterThan(0);
    expect(inTop).toBeGreaterThanOrEqual(3 * inRest);
    // Search pages the same people.
    const search = await post({ ...request, limit: 7, skip: 11 }, 'search');
    expect(search.body.results.map((r: { PID: string }) => r.PID)).toEqual(found.slice(11, 18));
  });

  it('ranks within what filters, include and exclude leave, then households and the sample narrow the lookalikes', async () => {
    const saved = api.core.savedAudiences.save({ name: 'TX trait', state: 'TX', filters: TRAIT, sample: { every: 2 } });
    const seed = new Set(oracle.listPids('TX', TRAIT, { every: 2 }));
    const women = oracle.pids('TX', [['GENDER', ['F']]]);
    const like = { seed: `saved:${saved.id}`, top: 200 };
    const found = await allPids({ state: 'TX', filters: [['GENDER', ['F']]], like });
    expect(found).toHaveLength(200);
    const allowed = new Set(women.filter((pid) => !seed.has(pid)));
    expect(found.every((pid) => allowed.has(pid))).toBe(true);
    // More than there are: everyone left but the seed.
    const small = oracle.pids('TX', [['AGE', ['70-72']]]);
    const everyoneLeft = await allPids({ state: 'TX', filters: [['AGE', ['70-72']]], like: { ...like, top: small.length + 10 } });
    expect(everyoneLeft).toEqual(small.filter((pid) => !seed.has(pid)));
    // households after like: one per household among the lookalikes; a sample after that.
    const oneEach = await allPids({ state: 'TX', filters: [['GENDER', ['F']]], like, households: 'one' });
    expect(oneEach.length).toBeLessThanOrEqual(200);
    expect(oneEach.every((pid) => found.includes(pid))).toBe(true);
    const sampled = await allPids({ state: 'TX', filters: [['GENDER', ['F']]], like, households: 'one', sample: { size: 50, seed: 3 } });
    expect(sampled).toHaveLength(50);
    expect(sampled.every((pid) => oneEach.includes(pid))).toBe(true);
    // exclude before like: the excluded never come back as lookalikes.
    const owners = api.core.savedAudiences.save({ name: 'TX owners', state: 'TX', filters: [['HOMEOWNERC', ['H']]] });
    const ownersSet = new Set(oracle.pids('TX', [['HOMEOWNERC', ['H']]]));
    const withoutOwners = await allPids({ state: 'TX', exclude: [`saved:${owners.id}`], like });
    expect(withoutOwners).toHaveLength(200);
    expect(withoutOwners.some((pid) => ownersSet.has(pid))).toBe(false);
  });

  it('a seed of under 30 people in the state, or unknown, or badly written, is a 400 naming like', async () => {
    const few = api.core.savedAudiences.save({ name: 'few', state: 'WY', filters: [['AGE', ['18']]], sample: { size: 29, seed: 1 } });
    const enough = api.core.savedAudiences.save({ name: 'enough', state: 'WY', filters: [], sample: { size: 30, seed: 1 } });
    expect((await post({ state: 'WY', like: { seed: `saved:${enough.id}`, top: 5 }, limit: 0 })).body.total).toBe(5);
    for (const like of [
      { seed: `saved:${few.id}`, top: 5 },
      // A saved audience of another state has nobody in this one.
      { seed: `saved:${enough.id}`, top: 5, state: 'CA' },
      { seed: 'saved:999999', top: 5 },
      { seed: 'list:nope', top: 5 },
      { seed: 'exports-since:2026-01-01', top: 5 },
      { seed: `saved:${enough.id}`, top: 0 },
      { seed: `saved:${enough.id}` },
    ]) {
      const { state = 'WY', ...body } = like as { state?: string };
      const answer = await post({ state, like: body });
      expect(answer.status, JSON.stringify(like)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', field: 'like' });
    }
  });
});
