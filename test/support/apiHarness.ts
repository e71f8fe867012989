// A real Core on a real dataset file with its own app-state folder, and the real HTTP server on
// port 0 with one key: what every API test talks to.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/createCore';
import { ApiServer, type ApiServerOptions } from '../../src/server/apiServer';
import { afterAll, beforeAll } from 'vitest';
import { SqlOracle } from './oracle';

export interface ApiHarness {
  core: Core;
  server: ApiServer;
  url: string;
  key: string;
  homeDir: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function startApi(datasetPath: string | undefined, options: ApiServerOptions = {}): Promise<ApiHarness> {
  const homeDir = mkdtempSync(join(tmpdir(), 'audience-desk-home-'));
  let core: Core;
  try {
    core = createCore({ homeDir, datasetPath });
  } catch (e) {
    // A dataset that does not open (the damage tests) leaves no home folder behind.
    rmSync(homeDir, { recursive: true, force: true });
    throw e;
  }
  const { key } = core.keys.create('test harness');
  // A long keep-alive: a test that works synchronously for seconds (an SQL oracle on a loaded
  // machine) stalls the event loop the server shares with it; when it ends, fetch reuses an idle
  // socket and, in the same turn, the server's overdue 5 s keep-alive timer closes it: ECONNRESET.
  // The real default is what test/security/load.test.ts exercises.
  const server = new ApiServer(core, { keepAliveTimeoutMs: 120_000, ...options });
  const url = await server.listen(0);
  return {
    core,
    server,
    url,
    key,
    homeDir,
    post: (path, body, headers = {}) =>
      fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async close() {
      await server.close();
      await core.shutdown();
      rmSync(homeDir, { recursive: true, force: true });
    },
  };
}

/**
 * For a test file: the API on the shared test dataset and the SQL oracle over the same file, started
 * before its tests and closed after them. Read them through the returned getters.
 */
export function useApiWithOracle(datasetPath: () => string): { api: () => ApiHarness; oracle: () => SqlOracle } {
  let api: ApiHarness;
  let oracle: SqlOracle;
  beforeAll(async () => {
    api = await startApi(datasetPath());
    oracle = new SqlOracle(datasetPath());
  });
  afterAll(async () => {
    await api.close();
    oracle.close();
  });
  return { api: () => api, oracle: () => oracle };
}
