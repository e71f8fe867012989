// Two real cores over the same records and the same app state: one on the dataset file (embedded
// engine), one on ClickHouse, each behind its own real HTTP server on port 0 with the same key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouseEngine, type ClickHouseEngineOptions } from '../../../src/core/clickhouse/clickhouseEngine';
import type { ClickHouseTarget } from '../../../src/core/clickhouse/connection';
import { createCore, type Core } from '../../../src/core/createCore';
import { ApiServer } from '../../../src/server/apiServer';

export interface Served {
  core: Core;
  url: string;
  post(path: string, body: unknown): Promise<Response>;
}

export interface TwoCores {
  homeDir: string;
  key: string;
  embedded: Served;
  clickhouse: Served;
  close(): Promise<void>;
}

async function serve(core: Core, key: () => string): Promise<{ served: Served; server: ApiServer }> {
  const server = new ApiServer(core);
  const url = await server.listen(0);
  const post = (path: string, body: unknown) =>
    fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key() }, body: JSON.stringify(body) });
  return { served: { core, url, post }, server };
}

export async function startTwoCores(
  datasetPath: string,
  target: ClickHouseTarget,
  options: ClickHouseEngineOptions = {},
): Promise<TwoCores> {
  const homeDir = mkdtempSync(join(tmpdir(), 'audience-desk-home-'));
  const embeddedCore = createCore({ homeDir, datasetPath });
  const engine = await ClickHouseEngine.open(target, options);
  const clickhouseCore = createCore({ homeDir, engine });
  const { key } = embeddedCore.keys.create('both engines');
  const a = await serve(embeddedCore, () => key);
  const b = await serve(clickhouseCore, () => key);
  return {
    homeDir,
    key,
    embedded: a.served,
    clickhouse: b.served,
    async close() {
      await Promise.all([a.server.close(), b.server.close()]);
      await clickhouseCore.shutdown();
      await embeddedCore.shutdown();
      rmSync(homeDir, { recursive: true, force: true });
    },
  };
}
