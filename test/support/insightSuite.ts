// Profile, `like`, `include` and overlap as part of the API suite (apiSuite.ts), run against every
// engine over the same records: each answer against plain SQL (profileOracle.ts, SqlOracle) or set
// arithmetic on full pages, and each lookalike answer against the first engine's, so the engines
// are shown to answer identically.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ListControlsInput } from '../../src/shared/listControls';
import type { SqlOracle } from './oracle';
import { ProfileOracle } from './profileOracle';

export type SavedAudienceInput = { name: string; state: string; filters: Array<[string, Array<string | number>]> } & ListControlsInput;

interface InsightServer {
  post(path: string, body: unknown): Promise<Response>;
  saveAudience(audience: SavedAudienceInput): number;
}

/** The first engine's answers, by question: every later engine must give the same. */
const firstAnswers = new Map<string, unknown>();
function sameAsFirstEngine(question: string, answer: unknown): void {
  if (firstAnswers.has(question)) expect(answer, question).toEqual(firstAnswers.get(question));
  else firstAnswers.set(question, answer);
}

const TRAIT: Array<[string, string[]]> = [
  ['EHI', ['G', 'H', 'I', 'J', 'K', 'L']],
  ['HOMEOWNERC', ['H']],
  ['AGE', ['45+']],
];

export function insightSuite(server: () => InsightServer, oracle: () => SqlOracle, datasetPath: () => string): void {
  let profiles: ProfileOracle;
  beforeAll(() => {
    profiles = new ProfileOracle(datasetPath());
  });
  afterAll(() => profiles?.close());

  const post = async (path: string, body: unknown) => {
    const res = await server().post(path, body);
    return { status: res.status, body: (await res.json()) as any };
  };
  const allPids = async (request: Record<string, unknown>): Promise<string[]> => {
    const pids: string[] = [];
    for (let skip = 0; ; skip += 1000) {
      const { status, body } = await post('/api/audiences/preview', { ...request, limit: 1000, skip });
      expect(status, JSON.stringify(body).slice(0, 200)).toBe(200);
      pids.push(...body.results.map((r: { pid: string }) => r.pid));
      if (pids.length >= body.total) {
        expect(pids).toHaveLength(body.total);
        expect([...pids].sort()).toEqual(pids);
        return pids;
      }
    }
  };

  it('include keeps exactly the people of at least one saved audience, then exclude', async () => {
    const married = server().saveAudience({ name: 'married', state: 'NY', filters: [['MARRIEDCD', ['M']]] });
    const old = server().saveAudience({ name: 'old', state: 'NY', filters: [['AGE', ['65+']]] });
    const owners = server().saveAudience({ name: 'owners', state: 'NY', filters: [['HOMEOWNERC', ['H']]] });
    const union = new Set([...oracle().pids('NY', [['MARRIEDCD', ['M']]]), ...oracle().pids('NY', [['AGE', ['65+']]])]);
    const ownersSet = new Set(oracle().pids('NY', [['HOMEOWNERC', ['H']]]));
    const expected = oracle()
      .pids('NY', [['GENDER', ['M']]])
      .filter((p) => union.has(p) && !ownersSet.has(p));
    expect(expected.length).toBeGreaterThan(20);
    const request = {
      state: 'NY',
      filters: [['GENDER', ['M']]],
      include: [`saved:${married}`, `saved:${old}`],
      exclude: [`saved:${owners}`],
    };
    expect(await allPids(request)).toEqual(expected);
  });

  it('the profile of audiences with list controls answers plain SQL', async () => {
    const owners = server().saveAudience({ name: 'owners PA', state: 'PA', filters: [['HOMEOWNERC', ['H']]] });
    const fields = ['GENDER', 'EHI', 'AGE', 'HOMEOWNERC', 'CHILD', 'DWELLTYPE'];
    for (const request of [
      { state: 'PA', filters: [['GENDER', ['F']]], include: [`saved:${owners}`], households: 'one' },
      { state: 'PA', contact: { mail: 'deliverable' }, sample: { every: 3 } },
    ]) {
      const pids = await allPids(request);
      const { status, body } = await post('/api/audiences/profile', { ...request, fields });
      expect(status).toBe(200);
      const expected = profiles.profile('PA', pids, fields);
      expect(body.total).toBe(expected.total);
      expect(body.base.total).toBe(expected.baseTotal);
      for (const f of body.fields) {
        const got = f.values.map(({ code, count, share, baseCount, baseShare, index }: any) => ({
          code,
          count,
          share,
          baseCount,
          baseShare,
          index,
        }));
        expect(got, f.name).toEqual(expected.fields.get(f.name));
      }
      sameAsFirstEngine(`profile ${JSON.stringify(request)}`, body);
    }
    const everything = await post('/api/audiences/profile', { state: 'PA', filters: [['AGE', ['30-40']]] });
    expect(everything.status).toBe(200);
    sameAsFirstEngine('profile of every coded field', everything.body);
  });

  it('like finds the seed trait, never the seed, the same people twice and on every engine', async () => {
    const seedId = server().saveAudience({ name: 'trait seed', state: 'CA', filters: TRAIT, sample: { every: 3 } });
    const seed = new Set(oracle().listPids('CA', TRAIT, { every: 3 }));
    const everyone = oracle().pids('CA');
    const top = Math.round(everyone.length * 0.05);
    const request = { state: 'CA', like: { seed: `saved:${seedId}`, top } };
    const found = await allPids(request);
    expect(found).toHaveLength(top);
    expect(found.some((p) => seed.has(p))).toBe(false);
    expect(await allPids(request)).toEqual(found);
    const trait = new Set(oracle().pids('CA', TRAIT));
    const chosen = new Set(found);
    const rest = everyone.filter((p) => !chosen.has(p));
    const rate = (pids: readonly string[]) => pids.filter((p) => trait.has(p)).length / pids.length;
    expect(rate(found)).toBeGreaterThanOrEqual(3 * rate(rest));
    sameAsFirstEngine('like of the trait seed', found);
    const filtered = await allPids({
      state: 'CA',
      filters: [['GENDER', ['F']]],
      like: { seed: `saved:${seedId}`, top: 150 },
      households: 'one',
    });
    sameAsFirstEngine('like within women, one a household', filtered);
    const profile = await post('/api/audiences/profile', { ...request, fields: ['EHI', 'AGE'] });
    expect(profile.body.total).toBe(top);
    sameAsFirstEngine('profile of the lookalikes', profile.body);
  });

  it('overlap counts each combination of saved audiences as set arithmetic on full pages does', async () => {
    const names = [
      ['MARRIEDCD', ['M']],
      ['HOMEOWNERC', ['H']],
      ['GENDER', ['F']],
    ] as Array<[string, string[]]>;
    const ids = names.map(([field, values]) => server().saveAudience({ name: field, state: 'FL', filters: [[field, values]] }));
    const sets = ids.map((id) => `saved:${id}`);
    const members = await Promise.all(sets.map(async (ref) => new Set(await allPids({ state: 'FL', include: [ref] }))));
    const { status, body } = await post('/api/audiences/overlap', { state: 'FL', sets });
    expect(status, JSON.stringify(body).slice(0, 200)).toBe(200);
    const everyone = oracle().pids('FL');
    for (const region of body.regions) {
      const expected = everyone.filter((p) => members.every((m, k) => m.has(p) === region.in.includes(k))).length;
      expect(region.count, JSON.stringify(region.in)).toBe(expected);
    }
    expect(body.regions).toHaveLength(7);
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 3; b++) expect(body.pairs[a][b]).toBe(everyone.filter((p) => members[a]!.has(p) && members[b]!.has(p)).length);
    sameAsFirstEngine('overlap of three', body);
  });
}
