// The switch at the end of a load: the new tables take the serving names (EXCHANGE TABLES or RENAME,
// by server version: serverDialect.ts) with the merges of the tables involved stopped, so the switch
// waits for no merge; the previous tables are dropped after. A single server switches in one go; a
// cluster without ZooKeeper shard by shard, then the entry server's metadata (a replicated cluster
// switches ON CLUSTER: replication.ts).
import { ClickHouseConnection } from './connection';
import { DATA_TABLE, META_TABLE } from './loadedMeta';
import { createDistributedSql } from './schema';
import { dropTableSql, switchSql, type ServerDialect, type SwitchPair } from './serverDialect';
import { sqlIdentifier } from './sqlLiteral';
import { LOCAL_TABLE } from './replication';

/** A table's name with its database, each quoted. */
export const qualified = (database: string, table: string): string => `${sqlIdentifier(database)}.${sqlIdentifier(table)}`;

export async function tableExists(connection: ClickHouseConnection, database: string, table: string): Promise<boolean> {
  const text = await connection.text(`EXISTS TABLE ${qualified(database, table)}`);
  return text.trim() === '1';
}

/**
 * The new tables take the names `people` and `people_meta` (EXCHANGE TABLES or one RENAME:
 * serverDialect.ts); the previous ones are dropped after. Merges of the serving table stop first too,
 * so the switch waits for no merge on either side; merges resume on whichever table serves after it.
 */
export async function switchSingle(entry: ClickHouseConnection, database: string, id: string, dialect: ServerDialect): Promise<void> {
  const pairs: SwitchPair[] = [];
  for (const [current, fresh] of [
    [DATA_TABLE, `${DATA_TABLE}_new_${id}`],
    [META_TABLE, `${META_TABLE}_new_${id}`],
  ] as const)
    pairs.push({ current, fresh, exists: await tableExists(entry, database, current) });
  const { statements, leftovers } = switchSql(dialect, database, pairs, id);
  await withoutMerges(entry, database, pairs[0]!.exists ? [DATA_TABLE] : [], async () => {
    for (const statement of statements) await entry.command(statement);
  });
  await entry.command(`SYSTEM START MERGES ${qualified(database, DATA_TABLE)}`);
  for (const table of leftovers) await entry.command(dropTableSql(dialect, database, table));
}

/** Runs `work` with the merges of some tables stopped, and starts them again if it fails (they still serve then). */
async function withoutMerges(
  connection: ClickHouseConnection,
  database: string,
  tables: string[],
  work: () => Promise<void>,
): Promise<void> {
  for (const table of tables) await connection.command(`SYSTEM STOP MERGES ${qualified(database, table)}`);
  try {
    await work();
  } catch (error) {
    for (const table of tables) await connection.command(`SYSTEM START MERGES ${qualified(database, table)}`).catch(() => undefined);
    throw error;
  }
}

/**
 * Each shard switches its new local table to `people_local` (one shard after the other: for that
 * moment shards answer from different loads); the entry server's Distributed `people` reads
 * `people_local` on every shard, and its metadata switches last.
 */
export async function switchCluster(
  entry: ClickHouseConnection,
  shards: ClickHouseConnection[],
  database: string,
  id: string,
  cluster: string,
  dialect: ServerDialect,
): Promise<void> {
  const dropAfter: Array<{ connection: ClickHouseConnection; table: string }> = [];
  for (const shard of shards) {
    const pair = { current: LOCAL_TABLE, fresh: `${LOCAL_TABLE}_new_${id}`, exists: await tableExists(shard, database, LOCAL_TABLE) };
    const { statements, leftovers } = switchSql(dialect, database, [pair], id);
    await withoutMerges(shard, database, pair.exists ? [LOCAL_TABLE] : [], async () => {
      for (const statement of statements) await shard.command(statement);
    });
    await shard.command(`SYSTEM START MERGES ${qualified(database, LOCAL_TABLE)}`);
    dropAfter.push(...leftovers.map((table) => ({ connection: shard, table })));
  }
  await entry.command(dropTableSql(dialect, database, `${DATA_TABLE}_new_${id}`));
  if (!(await tableExists(entry, database, DATA_TABLE)))
    await entry.command(createDistributedSql(qualified(database, DATA_TABLE), cluster, database, LOCAL_TABLE), dialect.createSettings);
  const meta = { current: META_TABLE, fresh: `${META_TABLE}_new_${id}`, exists: await tableExists(entry, database, META_TABLE) };
  const { statements, leftovers } = switchSql(dialect, database, [meta], id);
  for (const statement of statements) await entry.command(statement);
  for (const table of leftovers) await entry.command(dropTableSql(dialect, database, table));
  for (const { connection, table } of dropAfter) await connection.command(dropTableSql(dialect, database, table));
}
