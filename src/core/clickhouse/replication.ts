// A cluster whose servers share a ZooKeeper: every table is created on every node at once (`ON CLUSTER`,
// ClickHouse's distributed DDL), the data and metadata tables are ReplicatedMergeTree (each shard's
// replicas copy one another), and the switch renames (or exchanges) on every node the same way. Each
// node then has the Distributed `people` and the metadata, so any node answers. Needs the `{shard}` and
// `{replica}` macros in each server's config (docs/clickhouse.md, "A replicated cluster").
import type { ClickHouseConnection } from './connection';
import { DATA_TABLE, META_TABLE } from './loadedMeta';
import { createDistributedSql } from './schema';
import { dropTableSql, switchSql, type ServerDialect } from './serverDialect';
import { sqlIdentifier, sqlString } from './sqlLiteral';

/** The local table on each shard that a cluster's Distributed `people` reads (load.ts). */
export const LOCAL_TABLE = 'people_local';

export interface Replication {
  /** ` ON CLUSTER name`, appended to every DDL statement. */
  onCluster: string;
  /** Replicas of each shard, in shard order: an INSERT waits until all of its shard's have the part (insert_quorum). */
  replicasPerShard: number[];
}

const qualified = (database: string, table: string): string => `${sqlIdentifier(database)}.${sqlIdentifier(table)}`;

/** The cluster's replication when its servers have a ZooKeeper (distributed DDL needs one); null without. */
export async function replicationOf(entry: ClickHouseConnection, cluster: string): Promise<Replication | null> {
  try {
    await entry.rows("SELECT name FROM system.zookeeper WHERE path = '/' LIMIT 1");
  } catch {
    return null;
  }
  const rows = await entry.rows(
    `SELECT shard_num, count() FROM system.clusters WHERE cluster = ${sqlString(cluster)} GROUP BY shard_num ORDER BY shard_num`,
  );
  return { onCluster: ` ON CLUSTER ${sqlIdentifier(cluster)}`, replicasPerShard: rows.map((r) => Number(r[1])) };
}

/**
 * A ReplicatedMergeTree engine clause for a new table: its own ZooKeeper path per load (the table's name
 * holds the load's id), one a shard; `everywhere` puts every node in one replica set (the metadata).
 */
export function replicatedEngine(database: string, table: string, everywhere = false): string {
  const path = `/clickhouse/tables/${everywhere ? 'all' : '{shard}'}/${database}/${table}`;
  return `ReplicatedMergeTree(${sqlString(path)}, ${sqlString(everywhere ? '{shard}-{replica}' : '{replica}')})`;
}

/**
 * On every node: the new local table takes the name `people_local`, a Distributed `people` made for
 * this load takes the name `people` (so a schema change reaches every node), then the metadata
 * switches; the previous tables are dropped after, everywhere.
 */
export async function switchReplicated(
  entry: ClickHouseConnection,
  database: string,
  id: string,
  cluster: string,
  dialect: ServerDialect,
  replication: Replication,
  exists: (table: string) => Promise<boolean>,
): Promise<void> {
  const { onCluster } = replication;
  const freshDistributed = `${DATA_TABLE}_dist_${id}`;
  await entry.command(
    createDistributedSql(qualified(database, freshDistributed), cluster, database, LOCAL_TABLE, onCluster),
    dialect.createSettings,
  );
  // Made first wherever it is missing (a node added since, a table dropped by hand), so the swap below
  // finds it on every node; whatever it was, the fresh one replaces it.
  await entry.command(
    createDistributedSql(qualified(database, DATA_TABLE), cluster, database, LOCAL_TABLE, onCluster).replace(
      /^CREATE TABLE /,
      'CREATE TABLE IF NOT EXISTS ',
    ),
    dialect.createSettings,
  );
  const leftovers: string[] = [];
  for (const [current, fresh] of [
    [LOCAL_TABLE, `${LOCAL_TABLE}_new_${id}`],
    [DATA_TABLE, freshDistributed],
    [META_TABLE, `${META_TABLE}_new_${id}`],
  ] as const) {
    const step = switchSql(dialect, database, [{ current, fresh, exists: await exists(current) }], id, onCluster);
    for (const statement of step.statements) await entry.command(statement);
    leftovers.push(...step.leftovers);
  }
  for (const table of leftovers) await entry.command(dropTableSql(dialect, database, table, onCluster));
}
