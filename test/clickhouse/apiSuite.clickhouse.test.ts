// The API suite (test/support/apiSuite.ts) on both engines over the same records: the shared test
// dataset file, and that file loaded into a real ClickHouse single node served by its read-only user.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ClickHouseEngine } from '../../src/core/clickhouse/clickhouseEngine';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { createCore, type CoreOptions } from '../../src/core/createCore';
import { ApiServer } from '../../src/server/apiServer';
import { apiSuite, type SuiteServer } from '../support/apiSuite';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';

async function serve(options: Omit<CoreOptions, 'homeDir'>): Promise<SuiteServer> {
  const homeDir = mkdtempSync(join(tmpdir(), 'audience-desk-home-'));
  const core = createCore({ homeDir, ...options });
  const { key } = core.keys.create('suite');
  // A long keep-alive, as test/support/apiHarness.ts explains: the oracles' synchronous SQL stalls the
  // event loop the server shares, and an overdue keep-alive timer would close the socket fetch reuses.
  const server = new ApiServer(core, { keepAliveTimeoutMs: 120_000 });
  const url = await server.listen(0);
  return {
    saveAudience: (audience) => core.savedAudiences.save(audience).id,
    post: (path, body) =>
      fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) }),
    async close() {
      await server.close();
      await core.shutdown();
      rmSync(homeDir, { recursive: true, force: true });
    },
  };
}

apiSuite(
  'embedded engine (dataset file)',
  () => inject('datasetPath'),
  () => serve({ datasetPath: inject('datasetPath') }),
);

describeClickHouse('the API suite on ClickHouse', () => {
  const clickhouse = useLocalClickHouse();
  apiSuite(
    'ClickHouse engine (single node, read-only user)',
    () => inject('datasetPath'),
    async () => {
      await loadIntoClickHouse({ datasetPath: inject('datasetPath'), target: clickhouse().singleLoad });
      return serve({ engine: await ClickHouseEngine.open(clickhouse().singleServe, { queryBudgetSeconds: 120 }) });
    },
  );
});
