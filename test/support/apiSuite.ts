// The API's key behaviours as one suite function, run against any engine behind a real core and
// HTTP server (test/clickhouse/apiSuite.clickhouse.test.ts runs it on the dataset file and on ClickHouse):
// requests answer what plain SQL over the dataset file says (SqlOracle), pages are consecutive and
// cover the audience in PID order at any depth, records have the 392 fields with their JSON types,
// list controls keep exactly whom extensions.md says, and bad requests get the same errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELDS } from '../../src/shared/fields';
import { EARTH_RADIUS_MILES } from '../../src/shared/listControls';
import { SqlOracle } from './oracle';
import { insightSuite, type SavedAudienceInput } from './insightSuite';

export interface SuiteServer {
  post(path: string, body: unknown): Promise<Response>;
  /** Saves an audience in the server's app state (the app's audiences/save); its id. */
  saveAudience(audience: SavedAudienceInput): number;
  close(): Promise<void>;
}

type Filters = Array<[string, Array<string | number>]>;

const FILTER_SETS: Array<[string, Filters]> = [
  ['CA', []],
  [
    'CA',
    [
      ['GENDER', ['F']],
      ['MARRIEDCD', ['M']],
      ['AGE', ['25-29', '45-49']],
    ],
  ],
  ['TX', [['AGE', ['65+']]]],
  ['NY', [['HOMEOWNERC', ['h', 'R']]]],
  ['PA', [['LOR', [0, '3-5', '20+']]]],
  ['CA', [['APTTYPE', ['']]]],
  ['WY', [['FNAME', ['NOBODY-AT-ALL']]]],
];

function miles(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * r) / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.sqrt(h));
}

export function apiSuite(name: string, datasetPath: () => string, start: () => Promise<SuiteServer>, timeoutMs = 300_000): void {
  describe(`API suite: ${name}`, () => {
    let server: SuiteServer;
    let oracle: SqlOracle;
    beforeAll(async () => {
      server = await start();
      oracle = new SqlOracle(datasetPath());
    }, timeoutMs);
    afterAll(async () => {
      await server?.close();
      oracle?.close();
    });
    const post = async (path: string, body: unknown) => {
      const res = await server.post(path, body);
      return { status: res.status, body: (await res.json()) as any };
    };

    it.each(FILTER_SETS)('preview and search of %s %j answer the oracle', async (state, filters) => {
      const pids = oracle.pids(state, filters);
      const preview = await post('/api/audiences/preview', { state, filters, limit: 50 });
      expect(preview.status).toBe(200);
      expect(preview.body.total).toBe(pids.length);
      expect(preview.body.results.map((r: any) => r.pid)).toEqual(pids.slice(0, 50));
      const search = await post('/api/audiences/search', { state: state.toLowerCase(), filters, limit: 20, skip: 3 });
      expect(search.body).toMatchObject({ total: pids.length, limit: 20, skip: 3 });
      expect(search.body.results).toEqual(oracle.records(state, filters, 20, 3));
    });

    it('records carry the 392 fields in catalog order with their JSON types', async () => {
      const { body } = await post('/api/audiences/search', { state: 'CA', limit: 5 });
      for (const record of body.results) {
        expect(Object.keys(record)).toEqual(FIELDS.map((f) => f.name));
        FIELDS.forEach((f) => expect(typeof record[f.name]).toBe(f.type === 'string' ? 'string' : 'number'));
      }
    });

    it(
      'pages are consecutive, disjoint and cover the audience in PID order, at any depth',
      async () => {
        const filters: Filters = [['GENDER', ['M']]];
        const expected = oracle.pids('CA', filters);
        const seen: string[] = [];
        for (let skip = 0; skip < expected.length + 977; skip += 977) {
          const { body } = await post('/api/audiences/preview', { state: 'CA', filters, limit: 977, skip });
          expect(body.total).toBe(expected.length);
          seen.push(...body.results.map((r: any) => r.pid));
        }
        expect(seen).toEqual(expected);
        for (const skip of [expected.length - 7, Math.floor(expected.length / 2), expected.length, expected.length + 5]) {
          const { body } = await post('/api/audiences/search', { state: 'CA', filters, limit: 10, skip });
          expect(body.results.map((r: any) => r.PID)).toEqual(expected.slice(skip, skip + 10));
        }
        const none = await post('/api/audiences/preview', { state: 'CA', filters, limit: 0 });
        expect(none.body).toEqual({ total: expected.length, results: [] });
      },
      timeoutMs,
    );

    it('list controls keep whom extensions.md says: contact, one a household, every n-th', async () => {
      const filters: Filters = [['AGE', ['30-60']]];
      const expected = oracle.listPids('TX', filters, { phone: true, oneHousehold: true, every: 3 });
      const body = { state: 'TX', filters, contact: { phone: 'callable' }, households: 'one', sample: { every: 3 }, limit: 1000 };
      const { body: answer } = await post('/api/audiences/preview', body);
      expect(answer.total).toBe(expected.length);
      expect(answer.results.map((r: any) => r.pid)).toEqual(expected.slice(0, 1000));
      const mail = oracle.listPids('NY', [], { mail: true });
      expect((await post('/api/audiences/preview', { state: 'NY', contact: { mail: 'deliverable' }, limit: 0 })).body.total).toBe(
        mail.length,
      );
    });

    it('a seeded sample is the same people every time, a subset of the audience; near keeps those within the distance', async () => {
      const audience = new Set(oracle.pids('CA', []));
      const ask = { state: 'CA', sample: { size: 250, seed: 42 }, limit: 1000 };
      const first = (await post('/api/audiences/preview', ask)).body;
      const second = (await post('/api/audiences/preview', ask)).body;
      expect(first.total).toBe(250);
      expect(second.results).toEqual(first.results);
      expect(first.results.every((r: any) => audience.has(r.pid))).toBe(true);
      const places = oracle.places('CA');
      const centre = places[17]!;
      const within = places.filter((p) => miles(centre, p) <= 25).map((p) => p.pid);
      const near = (
        await post('/api/audiences/preview', { state: 'CA', near: { lat: centre.lat, lon: centre.lon, miles: 25 }, limit: 1000 })
      ).body;
      expect(near.results.map((r: any) => r.pid)).toEqual(within.slice(0, 1000));
    });

    insightSuite(
      () => server,
      () => oracle,
      () => datasetPath(),
    );

    it('near a ZIP of another state is a 400 naming the ZIP and "near"; a ZIP of the state answers', async () => {
      const nyZip = String(oracle.distinct('NY', 'ZIP')[0]);
      const elsewhere = await post('/api/audiences/preview', { state: 'CA', near: { zip: nyZip, miles: 25 }, limit: 0 });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.error).toMatchObject({
        code: 'invalid_request',
        field: 'near',
        message: `"near" names ZIP ${nyZip}, which no one in CA lives in.`,
      });
      expect((await post('/api/audiences/preview', { state: 'NY', near: { zip: nyZip, miles: 25 }, limit: 0 })).status).toBe(200);
    });

    it('exclude "exports-since:" a day to come leaves out nobody, and a day not on the calendar is a 400', async () => {
      const next = new Date();
      next.setDate(next.getDate() + 1);
      const day = `${next.getFullYear()}-${String(next.getMonth() + 1).padStart(2, '0')}-${String(next.getDate()).padStart(2, '0')}`;
      const all = await post('/api/audiences/preview', { state: 'TX', exclude: [`exports-since:${day}`], limit: 0 });
      expect(all.body.total).toBe(oracle.count('TX', []));
      const bad = await post('/api/audiences/preview', { state: 'TX', exclude: ['exports-since:2026-02-30'], limit: 0 });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'exclude' });
    });

    it('bad requests get the same clear errors', async () => {
      const unknownState = await post('/api/audiences/preview', { state: 'ZZ' });
      expect(unknownState.status).toBe(400);
      expect(unknownState.body.error.code).toBe('invalid_request');
      const typo = await post('/api/audiences/search', { state: 'CA', filters: [['GENDR', ['F']]] });
      expect(typo.status).toBe(400);
      expect(typo.body.error.message).toMatch(/did you mean GENDER/);
    });
  });
}
