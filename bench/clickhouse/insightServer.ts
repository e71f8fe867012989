// One local ClickHouse server (Debian's 18.16, as test/clickhouse/support/localServers.ts starts them)
// loaded with a dataset file by the project's loader, and an engine on it as `serve --clickhouse` opens
// one (the read-only user, default caches): for benches that ask the same of both engines
// (bench/insight.ts --clickhouse). Only the single node: a two-shard cluster would take two more servers'
// memory and CPU on a shared machine for an engine the insight bench does not compare.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouseEngine } from '../../src/core/clickhouse/clickhouseEngine';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { LOADER, READER, freePort, startServer, stopServer } from '../../test/clickhouse/support/localServers';

export interface LoadedClickHouse {
  engine: ClickHouseEngine;
  /** The loader's rate, records a second. */
  recordsPerSecond: number;
  loadSeconds: number;
  /** Stops the server and removes its folder; close the engine (or the core that owns it) first. */
  stop(): Promise<void>;
}

export async function loadedClickHouse(datasetPath: string): Promise<LoadedClickHouse> {
  const root = mkdtempSync(join(tmpdir(), 'audience-desk-bench-insight-clickhouse-'));
  const tcp = await freePort();
  // Its own cluster of one shard (itself), so the packaged config's remote_servers stays well formed.
  const server = await startServer(root, 'single', [{ tcp }], tcp);
  const stop = async (): Promise<void> => {
    await stopServer(server);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const target = { url: server.url, database: 'audience_desk' };
    const started = performance.now();
    const load = await loadIntoClickHouse({ datasetPath, target: { ...target, credentials: LOADER } });
    const loadSeconds = (performance.now() - started) / 1000;
    const engine = await ClickHouseEngine.open({ ...target, credentials: READER });
    return { engine, recordsPerSecond: load.recordsPerSecond, loadSeconds, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
