// Loads a dataset file into ClickHouse: every record, read through the dataset's own reader (never SQL
// on the file, whose format belongs to src/core/dataset), into a NEW table, checked, and only then
// switched to (EXCHANGE TABLES or RENAME, by server version: serverDialect.ts), so a load that fails or
// is stopped leaves the previous table serving and removes what it wrote. With a cluster, the new local
// table is created on every shard, each shard is sent its own rows (placed by the Distributed table's
// sharding key: sharding.ts), and each shard's tables are switched once all rows are in; with a
// ZooKeeper, on every node at once with replicated tables (replication.ts). The switch itself: tableSwitch.ts.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { FIELDS } from '../../shared/fields';
import { HASHED_FIELDS } from '../dataset/write/columnSet';
import { Dataset } from '../dataset/read/dataset';
import { ClickHouseConnection, type ClickHouseCredentials, type ClickHouseTarget } from './connection';
import { DATA_TABLE, META_TABLE } from './loadedMeta';
import { createDistributedSql, createMetaSql, createTableSql, TABLE_LAYOUT } from './schema';
import { detectDialect, dropTableSql, type ServerDialect } from './serverDialect';
import { sqlIdentifier, sqlString } from './sqlLiteral';
import { tsvLineBytes, writeClickHouseTsv } from './tsvBytes';
import { InsertBody } from './insertBody';
import { qualified, switchCluster, switchSingle, tableExists } from './tableSwitch';
import { pidOfStoredBytes, shardOfPid } from './sharding';
import { LOCAL_TABLE, replicatedEngine, replicationOf, switchReplicated, type Replication } from './replication';

export { LOCAL_TABLE };
/**
 * Records one INSERT request carries, written by the server as ONE part. Measured on 18.16 with 392
 * columns: every part costs about 0.2-0.6 CPU-seconds of its own (a compressed stream and marks per
 * column), so parts of 32,768 rows cost more than their rows; and letting the server squash small
 * blocks into big ones copies the growing block again and again. So a block is an insert.
 */
export const RECORDS_PER_INSERT = 200_000;
/**
 * INSERT requests a single node takes at once, alternate batches each. One: since each record also
 * carries its stored text, two at once took longer than one after the other (measured on 18.16: their
 * allocations contend) and held twice the server's memory (docs/clickhouse.md). A cluster takes one
 * request a shard.
 */
const SINGLE_NODE_STREAMS = 1;
const BATCH = 2_000;
/**
 * Settings of each INSERT: one block (so one part) a request, never squashed with the next; and the
 * default max_query_size, not the engine's 64 MB for long IN lists, which makes 18.16 read that much of
 * the body before it starts parsing rows.
 */
function onePartAnInsert(recordsPerInsert: number): Record<string, number> {
  return {
    max_insert_block_size: recordsPerInsert,
    min_insert_block_size_rows: 0,
    min_insert_block_size_bytes: 0,
    max_query_size: 262_144,
  };
}

export interface LoadOptions {
  datasetPath: string;
  target: ClickHouseTarget;
  /** A cluster of the server's remote_servers, and the HTTP address of each of its shards in its order. */
  cluster?: { name: string; shardUrls: string[] };
  /** Called after each batch with the records written so far; throwing stops the load (tests). */
  onProgress?: (records: number, total: number) => void;
  /** Records an INSERT request carries at most (RECORDS_PER_INSERT); at least one batch (2,000). Smaller values exist for tests. */
  recordsPerInsert?: number;
}

export interface LoadResult {
  records: number;
  seconds: number;
  recordsPerSecond: number;
  table: string;
  shards: number;
  /** The load's id: the new tables were `people_new_<id>` (`people_local_new_<id>` on a cluster) until the switch. */
  loadId: string;
}

/**
 * String fields the embedded engine hashes (too many distinct values to break down): those the
 * dataset file keeps as hashes, which is what the embedded engine reads. Counting them again on the
 * server (a uniq of 174 columns) was a full scan of the new table on every load.
 */
function hashedFields(dataset: Dataset): string[] {
  const overLimit = FIELDS.filter((f, i) => f.type === 'string' && !HASHED_FIELDS.has(f.name) && dataset.columnInfo(i).encoding === 'hash');
  return [...HASHED_FIELDS, ...overLimit.map((f) => f.name)];
}

/** Stored records of one state, with each one's PID rank in its state. */
interface RecordBatch {
  /** Each record's stored text as UTF-8 bytes (tsvBytes.ts converts them without decoding). */
  records: Buffer[];
  ranks: Uint32Array;
}

/**
 * Every record of the dataset, state by state in code order and each state's in the file's order
 * (the table sorts by rank), a batch of stored records at a time, each with its PID rank: the file's
 * stored ranks (a file kept in household order), else its place in the state (a file in PID order).
 */
async function* allRecords(dataset: Dataset): AsyncGenerator<RecordBatch> {
  const states = dataset.stateCounts().sort((a, b) => (a.state < b.state ? -1 : 1));
  for (const range of states) {
    const { first, count } = range;
    const stored = dataset.pidOrder(range)?.ranks ?? null;
    for (let from = first, end = first + count; from < end; from += BATCH) {
      const positions = new Uint32Array(Math.min(BATCH, end - from));
      const ranks = new Uint32Array(positions.length);
      for (let k = 0; k < positions.length; k++) {
        positions[k] = from + k;
        ranks[k] = stored ? stored[from - first + k]! : from - first + k;
      }
      yield { records: dataset.recordBytes(positions), ranks };
    }
  }
}

/** Which of a round's INSERT requests takes a record (the record's stored bytes, its batch's number). */
type Route = (record: Buffer, batch: number) => number;

/**
 * Inserts every record as TabSeparated lines, in rounds: a round opens one streamed INSERT request a
 * target and feeds each the records the route gives it, until one holds RECORDS_PER_INSERT (so no
 * request holds the whole dataset, and memory stays at a few batches a request: insertBody.ts). The
 * first failure, of a request or of the loader's own work, aborts every request of the round.
 */
async function insertAll(
  dataset: Dataset,
  targets: ReadonlyArray<(text: AsyncIterable<Buffer>) => Promise<void>>,
  route: Route,
  onRecords: (n: number) => void,
  recordsPerInsert: number,
): Promise<void> {
  const source = allRecords(dataset);
  let batch = 0;
  let finished = false;
  while (!finished) {
    const bodies = targets.map(() => new InsertBody());
    const requests = targets.map((insert, i) =>
      insert(bodies[i]!.text()).catch((error: unknown) => {
        for (const body of bodies) body.fail(error);
        throw error;
      }),
    );
    const sent = targets.map(() => 0);
    try {
      // A batch adds at most BATCH records to a request: one more only while it still fits, so no
      // request passes recordsPerInsert (past it, the server would cut a second, tiny part).
      while (Math.max(...sent) + BATCH <= recordsPerInsert) {
        const step = await source.next();
        if (step.done) {
          finished = true;
          break;
        }
        const { records, ranks } = step.value;
        let room = 0;
        for (const record of records) room += tsvLineBytes(record.length);
        // One buffer a target, each with room for the whole batch (a batch is 2,000 records).
        const lines = targets.map(() => ({ out: Buffer.allocUnsafe(room), end: 0 }));
        for (let k = 0; k < records.length; k++) {
          const i = route(records[k]!, batch);
          const target = lines[i]!;
          target.end = writeClickHouseTsv(records[k]!, ranks[k]!, target.out, target.end);
          sent[i]!++;
        }
        batch++;
        onRecords(records.length);
        await Promise.all(bodies.map((body, i) => body.push(lines[i]!.out.subarray(0, lines[i]!.end))));
      }
      for (const body of bodies) body.end();
    } catch (error) {
      for (const body of bodies) body.fail(error);
      await Promise.allSettled(requests);
      throw error;
    }
    await Promise.all(requests);
  }
}

export async function loadIntoClickHouse(options: LoadOptions): Promise<LoadResult> {
  const started = performance.now();
  const { target, cluster } = options;
  const database = target.database;
  // Every block is checked against its CRC as it is read (no whole-file verify beside the load to take a core from it).
  const dataset = Dataset.open(options.datasetPath);
  const entry = new ClickHouseConnection(target, { requestTimeoutMs: 3_600_000, keepAlive: false });
  const shards = (cluster?.shardUrls ?? []).map(
    (url) => new ClickHouseConnection({ ...target, url }, { requestTimeoutMs: 3_600_000, keepAlive: false }),
  );
  const id = `${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const newData = `${DATA_TABLE}_new_${id}`;
  const newLocal = `${LOCAL_TABLE}_new_${id}`;
  const newMeta = `${META_TABLE}_new_${id}`;
  const created: Array<{ connection: ClickHouseConnection; table: string; onCluster?: string }> = [];
  const total = dataset.records;
  const recordsPerInsert = options.recordsPerInsert ?? RECORDS_PER_INSERT;
  if (!(recordsPerInsert >= BATCH)) throw new Error(`recordsPerInsert must be at least ${BATCH}.`);
  let dialect: ServerDialect | null = null;
  let replication: Replication | null = null;
  try {
    if (cluster) await checkCluster(entry, cluster);
    // A cluster with a ZooKeeper: replicated tables on every node at once (replication.ts).
    if (cluster) replication = await replicationOf(entry, cluster.name);
    const onCluster = replication?.onCluster ?? '';
    for (const connection of replication ? [entry] : [entry, ...shards])
      await connection.command(`CREATE DATABASE IF NOT EXISTS ${sqlIdentifier(database)}${onCluster}`);
    dialect = await detectDialect(entry, database);
    const settings = dialect.createSettings;
    // Merges of the new table stay stopped until it serves: a RENAME waits for a running merge while it
    // holds the tables, which froze reads for seconds; and the load's inserts have the cores to themselves.
    const stopMerges = (connection: ClickHouseConnection, table: string) =>
      connection.command(`SYSTEM STOP MERGES ${qualified(database, table)}`);
    if (replication) {
      await entry.command(createTableSql(qualified(database, newLocal), replicatedEngine(database, newLocal), onCluster), settings);
      created.push({ connection: entry, table: newLocal, onCluster });
      // Only the nodes the loader writes to are reached here (SYSTEM takes no ON CLUSTER on 18.16).
      for (const shard of shards) await stopMerges(shard, newLocal);
      await entry.command(createDistributedSql(qualified(database, newData), cluster!.name, database, newLocal), settings);
    } else if (cluster) {
      for (const shard of shards) {
        await shard.command(createTableSql(qualified(database, newLocal)), settings);
        created.push({ connection: shard, table: newLocal });
        await stopMerges(shard, newLocal);
      }
      await entry.command(createDistributedSql(qualified(database, newData), cluster.name, database, newLocal), settings);
    } else {
      await entry.command(createTableSql(qualified(database, newData)), settings);
      await stopMerges(entry, newData);
    }
    created.push({ connection: entry, table: newData });

    let written = 0;
    // Rows go straight to each shard's local table, placed as the Distributed table's key would place them.
    const targets = cluster
      ? shards.map(
          (shard, i) => (text: AsyncIterable<Buffer>) =>
            shard.insertTsv(qualified(database, newLocal), text, {
              ...onePartAnInsert(recordsPerInsert),
              // Answered once every replica of the shard holds the part: the count below and the switch see them all.
              ...((replication?.replicasPerShard[i] ?? 1) > 1 ? { insert_quorum: String(replication!.replicasPerShard[i]!) } : {}),
            }),
        )
      : Array.from(
          { length: SINGLE_NODE_STREAMS },
          () => (text: AsyncIterable<Buffer>) => entry.insertTsv(qualified(database, newData), text, onePartAnInsert(recordsPerInsert)),
        );
    const route: Route = cluster
      ? (record) => shardOfPid(pidOfStoredBytes(record), shards.length)
      : (_record, batch) => batch % SINGLE_NODE_STREAMS;
    // A progress callback that throws stops the load with its own error, not the aborted request's.
    let stopped: unknown = null;
    await insertAll(
      dataset,
      targets,
      route,
      (n) => {
        written += n;
        try {
          options.onProgress?.(written, total);
        } catch (error) {
          stopped = error;
          throw error;
        }
      },
      recordsPerInsert,
    ).catch((error: unknown) => {
      throw stopped ?? error;
    });

    const [[count]] = (await entry.rows(`SELECT count() FROM ${qualified(database, newData)}`)) as [[string]];
    if (Number(count) !== total)
      throw new Error(`ClickHouse holds ${count} of the dataset's ${total} records after the load; nothing was switched.`);

    const hashed = hashedFields(dataset);
    await entry.command(
      replication
        ? createMetaSql(qualified(database, newMeta), replicatedEngine(database, newMeta, true), onCluster)
        : createMetaSql(qualified(database, newMeta)),
    );
    created.push({ connection: entry, table: newMeta, onCluster });
    const meta: Array<[string, string]> = [
      ['load_id', id],
      ['loaded_at', new Date().toISOString()],
      ['source', basename(options.datasetPath)],
      ['created_at', dataset.meta.created_at ?? ''],
      ['records', String(total)],
      ['hashed_fields', JSON.stringify(hashed)],
      ['table_layout', TABLE_LAYOUT],
    ];
    // Literals again (sqlLiteral.ts): a current server would take these as query parameters.
    // On a replicated cluster, answered once every node holds it: any node answers from the new load at once.
    const nodes = replication?.replicasPerShard.reduce((a, b) => a + b, 0) ?? 1;
    await entry.command(
      `INSERT INTO ${qualified(database, newMeta)} VALUES ${meta.map(([k, v]) => `(${sqlString(k)}, ${sqlString(v)})`).join(', ')}`,
      nodes > 1 ? { insert_quorum: String(nodes) } : {},
    );

    if (replication) {
      await switchReplicated(entry, database, id, cluster!.name, dialect, replication, (table) => tableExists(entry, database, table));
      await entry.command(dropTableSql(dialect, database, newData));
      for (const shard of shards) await shard.command(`SYSTEM START MERGES ${qualified(database, LOCAL_TABLE)}`);
    } else if (cluster) await switchCluster(entry, shards, database, id, cluster.name, dialect);
    else await switchSingle(entry, database, id, dialect);
    created.length = 0;
    const seconds = (performance.now() - started) / 1000;
    return {
      records: total,
      seconds,
      recordsPerSecond: Math.round(total / seconds),
      table: qualified(database, DATA_TABLE),
      shards: shards.length || 1,
      loadId: id,
    };
  } finally {
    // A load that did not switch removes what it created; the previous tables were never touched.
    for (const { connection, table, onCluster } of created.reverse())
      await connection
        .command(dialect ? dropTableSql(dialect, database, table, onCluster) : `DROP TABLE IF EXISTS ${qualified(database, table)}`)
        .catch(() => undefined);
    dataset.close();
    await Promise.all([entry.close(), ...shards.map((s) => s.close())]);
  }
}

/** The cluster exists in the entry server's remote_servers, with as many shards as addresses given. */
async function checkCluster(entry: ClickHouseConnection, cluster: { name: string; shardUrls: string[] }): Promise<void> {
  const rows = await entry.rows(`SELECT shard_num FROM system.clusters WHERE cluster = ${sqlString(cluster.name)} GROUP BY shard_num`);
  if (rows.length === 0) throw new Error(`The server has no cluster named ${cluster.name} in its remote_servers.`);
  if (rows.length !== cluster.shardUrls.length)
    throw new Error(
      `Cluster ${cluster.name} has ${rows.length} shards; give the HTTP address of each (--shard-urls), ${cluster.shardUrls.length} given.`,
    );
}

export type { ClickHouseCredentials };
