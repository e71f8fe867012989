// The local ClickHouse servers of ./localServers.ts for one test file: started
// before its tests, stopped after. Without clickhouse-server installed the file FAILS with the
// command that installs it; only AUDIENCE_DESK_NO_CLICKHOUSE=1 (never set by CI) turns that into a
// skip, and the reason is printed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { CLUSTER_NAME, clickHouseInstalled, LOADER, READER, startLocalClickHouse, type LocalClickHouse } from './localServers';
import type { ClickHouseTarget } from '../../../src/core/clickhouse/connection';

export const SKIP_CLICKHOUSE = process.env.AUDIENCE_DESK_NO_CLICKHOUSE === '1';

/** describe(), or describe.skip() with the reason printed when AUDIENCE_DESK_NO_CLICKHOUSE=1. */
export function describeClickHouse(name: string, body: () => void): void {
  if (SKIP_CLICKHOUSE) {
    console.warn(`SKIPPED ${name}: AUDIENCE_DESK_NO_CLICKHOUSE=1 is set (CI never sets it).`);
    describe.skip(name, body);
    return;
  }
  if (!clickHouseInstalled())
    throw new Error(
      'clickhouse-server is not installed, so the ClickHouse tests cannot run: `apt-get install -y clickhouse-server clickhouse-client` ' +
        '(Debian 12; .ci/run does it), or set AUDIENCE_DESK_NO_CLICKHOUSE=1 to skip them on purpose.',
    );
  describe(name, body);
}

export interface ClickHouseFixture {
  servers: LocalClickHouse;
  /** The single node, as the loading user. */
  singleLoad: ClickHouseTarget;
  /** The single node, as the read-only serving user. */
  singleServe: ClickHouseTarget;
  /** The two-shard cluster's entry (shard 1), loading and serving, and the shards' HTTP addresses. */
  clusterLoad: ClickHouseTarget;
  clusterServe: ClickHouseTarget;
  shardUrls: string[];
  clusterName: string;
}

/** Starts the servers in beforeAll (inside a describeClickHouse) and stops them in afterAll. */
export function useLocalClickHouse(database = 'audience_desk'): () => ClickHouseFixture {
  let fixture: ClickHouseFixture;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'audience-desk-clickhouse-'));
    const servers = await startLocalClickHouse(root);
    const target = (url: string, who: typeof LOADER): ClickHouseTarget => ({ url, database, credentials: { ...who } });
    fixture = {
      servers,
      singleLoad: target(servers.single.url, LOADER),
      singleServe: target(servers.single.url, READER),
      clusterLoad: target(servers.shards[0].url, LOADER),
      clusterServe: target(servers.shards[0].url, READER),
      shardUrls: servers.shards.map((s) => s.url),
      clusterName: CLUSTER_NAME,
    };
  });
  afterAll(async () => {
    await fixture?.servers.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return () => fixture;
}
