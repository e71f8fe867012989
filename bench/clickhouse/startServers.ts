// Starts the local ClickHouse servers by hand (benchmarks, trying `serve --clickhouse`): a single
// node and a two-shard cluster on free loopback ports under a folder, until Ctrl-C.
//   npx tsx bench/clickhouse/startServers.ts [DIR]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLUSTER_NAME, LOADER, READER, startLocalClickHouse } from '../../test/clickhouse/support/localServers';

async function main(): Promise<void> {
  const root = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'audience-desk-clickhouse-'));
  const servers = await startLocalClickHouse(root);
  console.log(`single node: ${servers.single.url}`);
  console.log(`cluster ${CLUSTER_NAME}: entry ${servers.shards[0].url}, shards ${servers.shards.map((s) => s.url).join(',')}`);
  console.log(
    `users: ${LOADER.username} (loads) and ${READER.username} (read-only, serves); their test passwords are in test/clickhouse/support/localServers.ts`,
  );
  console.log(`data and logs: ${root}`);
  const stop = (): void => void servers.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
  console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
