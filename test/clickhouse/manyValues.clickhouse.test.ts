// Requests that carry many values (five AGE filters of 1,000 bands each, 40 KB within the API's
// limits) answer on ClickHouse exactly as on the embedded engine; and when the server fails a query,
// the API client is answered a neutral 503 that names neither the server's address nor its message,
// while the detail reaches the server's log and the Data source screen.
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { NEUTRAL_UNAVAILABLE } from '../../src/core/clickhouse/servingErrors';
import { FILTER_VALUES_MAX } from '../../src/shared/audienceRequest';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';
import { startTwoCores, type TwoCores } from './support/twoCores';

/** A small deterministic generator, so the bands are the same on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** 1,000 AGE bands of every kind (N, LO-HI, N+), around a centre so that five filters still share people. */
function ageBands(seed: number, centre: number): string[] {
  const next = random(seed);
  return Array.from({ length: FILTER_VALUES_MAX }, (_, i) => {
    const lo = centre - 12 + Math.floor(next() * 24);
    const kind = i % 7 === 0 ? 'plus' : i % 3 === 0 ? 'exact' : 'band';
    if (kind === 'plus') return `${lo + 40}+`;
    return kind === 'exact' ? String(lo) : `${lo}-${lo + Math.floor(next() * 4)}`;
  });
}

describeClickHouse('many values in one request, and errors an API client may see', () => {
  const clickhouse = useLocalClickHouse();
  let cores: TwoCores;

  beforeAll(async () => {
    const ch = clickhouse();
    const datasetPath = inject('datasetPath');
    await loadIntoClickHouse({ datasetPath, target: ch.singleLoad });
    cores = await startTwoCores(datasetPath, ch.singleServe);
  });
  afterAll(async () => {
    await cores?.close();
  });

  const fiveAgeFilters = (state: string) => ({
    state,
    filters: [40, 42, 44, 46, 48].map((centre, i) => ['AGE', ageBands(1000 + i, centre)]),
    limit: 100,
    skip: 3,
  });

  it('answers five AGE filters of 1,000 bands each exactly as the embedded engine', async () => {
    const body = fiveAgeFilters('CA');
    expect(JSON.stringify(body).length).toBeGreaterThan(30_000);
    for (const path of ['/api/audiences/preview', '/api/audiences/search']) {
      const [a, b] = await Promise.all([cores.embedded.post(path, body), cores.clickhouse.post(path, body)]);
      const [ta, tb] = [await a.text(), await b.text()];
      expect(a.status).toBe(200);
      expect({ status: b.status, text: tb }).toEqual({ status: a.status, text: ta });
      expect((JSON.parse(ta) as { total: number }).total).toBeGreaterThan(0);
    }
  });

  it('answers many disjoint ranges (tested against arrays) and many single values alike', async () => {
    // Ranges too wide to list as values: 0-4, 10-14, ... and some far beyond any age.
    const wide = Array.from({ length: 200 }, (_, k) => (k < 20 ? `${k * 10}-${k * 10 + 4}` : `${k * 100_000}-${k * 100_000 + 50_000}`));
    const singles = Array.from({ length: FILTER_VALUES_MAX }, (_, k) => (k * 7) % 3000);
    for (const filters of [
      [['AGE', wide]],
      [['LOR', singles]],
      [
        ['AGE', wide],
        ['HHNBR', singles],
      ],
    ]) {
      const body = { state: 'TX', filters, limit: 50, skip: 0 };
      const [a, b] = await Promise.all([
        cores.embedded.post('/api/audiences/preview', body),
        cores.clickhouse.post('/api/audiences/preview', body),
      ]);
      const [ta, tb] = [await a.text(), await b.text()];
      expect(a.status).toBe(200);
      expect({ filters, status: b.status, text: tb }).toEqual({ filters, status: a.status, text: ta });
    }
  });

  it('answers a failed query with a neutral 503; the detail goes to the log and the Data source screen', async () => {
    const ch = clickhouse();
    const logged: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    const loader = new ClickHouseConnection(ch.singleLoad);
    try {
      // The served table disappears under the engine (an administrator's mistake): every query fails on the server.
      await loader.command('DROP TABLE audience_desk.people');
      const response = await cores.clickhouse.post('/api/audiences/preview', fiveAgeFilters('NY'));
      const text = await response.text();
      expect(response.status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'unavailable', message: NEUTRAL_UNAVAILABLE } });
      const port = new URL(ch.singleServe.url).port;
      for (const secret of ['127.0.0.1', port, 'ClickHouse', 'error 60', 'people', 'audience_desk']) expect(text).not.toContain(secret);

      // The server's log and the Data source screen hold what the client was not told.
      expect(logged.join('\n')).toContain(`ClickHouse at http://127.0.0.1:${port} answered error 60`);
      const info = await cores.clickhouse.core.dataSources.describe();
      expect(info.current).toBe('clickhouse');
      expect(info.queryError?.detail).toContain(`http://127.0.0.1:${port} answered error 60`);
      expect(Date.parse(info.queryError!.at)).not.toBeNaN();
      // The embedded engine's core has no such failure to show.
      expect((await cores.embedded.core.dataSources.describe()).queryError).toBeNull();

      // A server that no longer answers at all: the same neutral answer.
      await ch.servers.stop();
      const gone = await cores.clickhouse.post('/api/audiences/preview', { state: 'CA' });
      const goneText = await gone.text();
      expect(gone.status).toBe(503);
      expect(goneText).not.toContain(port);
      expect(JSON.parse(goneText)).toMatchObject({ error: { message: NEUTRAL_UNAVAILABLE } });
      expect((await cores.clickhouse.core.dataSources.describe()).queryError?.detail).toContain(`http://127.0.0.1:${port} did not answer`);
    } finally {
      spy.mockRestore();
      await loader.close();
    }
  });
});
