// Loads a dataset file into ClickHouse: every record, read through the dataset's own reader (never SQL
// on the file, whose format belongs to src/core/dataset), into a NEW table, checked, and only then
// switched to by RENAME, so a load that fails or is stopped leaves the previous table serving and
// removes what it wrote. With a cluster, the new local table is created on every shard, each shard
// is sent its own rows (placed by the Distributed table's sharding key: sharding.ts), and each
// shard's tables are renamed once all rows are in.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { FIELDS } from '../../shared/fields';
import { DICTIONARY_LIMIT, HASHED_FIELDS } from '../dataset/write/columnSet';
import { Dataset } from '../dataset/read/dataset';
import { ClickHouseConnection, type ClickHouseCredentials, type ClickHouseTarget } from './connection';
import { DATA_TABLE, META_TABLE } from './clickhouseEngine';
import { CREATE_SETTINGS, createDistributedSql, createMetaSql, createTableSql } from './schema';
import { sqlIdentifier, sqlString } from './sqlLiteral';
import { storedRecordToClickHouseTsv } from './tsvLine';
import { InsertBody } from './insertBody';
import { pidOfStoredRecord, shardOfPid } from './sharding';

/** The local table on each shard that a cluster's Distributed `people` reads. */
export const LOCAL_TABLE = 'people_local';
/**
 * Records one INSERT request carries, written by the server as ONE part. Measured on 18.16 with 392
 * columns: every part costs about 0.2-0.6 CPU-seconds of its own (a compressed stream and marks per
 * column), so parts of 32,768 rows cost more than their rows; and letting the server squash small
 * blocks into big ones copies the growing block again and again. So a block is an insert.
 */
const RECORDS_PER_INSERT = 200_000;
/**
 * INSERT requests a single node takes at once, alternate batches each. A request is parsed and
 * written on one server thread; a second lets the next part overlap the first (on one 18.16 server
 * the gain is small, measured: its allocations contend). A cluster takes one request a shard.
 */
const SINGLE_NODE_STREAMS = 2;
const BATCH = 2_000;
/** Settings of each INSERT: one block (so one part) a request, never squashed with the next. */
const ONE_PART_AN_INSERT: Record<string, number> = {
  max_insert_block_size: RECORDS_PER_INSERT,
  min_insert_block_size_rows: 0,
  min_insert_block_size_bytes: 0,
};

export interface LoadOptions {
  datasetPath: string;
  target: ClickHouseTarget;
  /** A cluster of the server's remote_servers, and the HTTP address of each of its shards in its order. */
  cluster?: { name: string; shardUrls: string[] };
  /** Called after each batch with the records written so far; throwing stops the load (tests). */
  onProgress?: (records: number, total: number) => void;
}

export interface LoadResult {
  records: number;
  seconds: number;
  recordsPerSecond: number;
  table: string;
  shards: number;
}

const qualified = (database: string, table: string): string => `${sqlIdentifier(database)}.${sqlIdentifier(table)}`;

async function tableExists(connection: ClickHouseConnection, database: string, table: string): Promise<boolean> {
  const text = await connection.text(`EXISTS TABLE ${qualified(database, table)}`);
  return text.trim() === '1';
}

/** String fields the embedded engine would hash (too many distinct values to break down), from the loaded rows. */
async function hashedFields(connection: ClickHouseConnection, table: string): Promise<string[]> {
  const candidates = FIELDS.filter((f) => f.type === 'string' && !HASHED_FIELDS.has(f.name)).map((f) => f.name);
  const [approx] = await connection.rows(`SELECT ${candidates.map((n) => `uniq(${sqlIdentifier(n)})`).join(', ')} FROM ${table}`);
  // uniq is approximate (about 1%): count exactly the fields near the limit.
  const near = candidates.filter((_, i) => Number(approx![i]) > DICTIONARY_LIMIT * 0.9);
  const hashed = [...HASHED_FIELDS];
  if (near.length) {
    const [exact] = await connection.rows(`SELECT ${near.map((n) => `uniqExact(${sqlIdentifier(n)})`).join(', ')} FROM ${table}`);
    near.forEach((name, i) => {
      if (Number(exact![i]) > DICTIONARY_LIMIT) hashed.push(name);
    });
  }
  return hashed;
}

/**
 * Every record of the dataset, state by state in code order and each state's in the file's order
 * (the table sorts by PID), a batch of stored records at a time.
 */
async function* allRecords(dataset: Dataset): AsyncGenerator<string[]> {
  const states = dataset.stateCounts().sort((a, b) => (a.state < b.state ? -1 : 1));
  for (const { first, count } of states)
    for (let from = first, end = first + count; from < end; from += BATCH) {
      const positions = new Uint32Array(Math.min(BATCH, end - from));
      for (let k = 0; k < positions.length; k++) positions[k] = from + k;
      yield dataset.recordTexts(positions);
    }
}

/** Which of a round's INSERT requests takes a record (the record's text, its batch's number). */
type Route = (record: string, batch: number) => number;

/**
 * Inserts every record as TabSeparated lines, in rounds: a round opens one streamed INSERT request a
 * target and feeds each the records the route gives it, until one holds RECORDS_PER_INSERT (so no
 * request holds the whole dataset, and memory stays at a few batches a request: insertBody.ts). The
 * first failure, of a request or of the loader's own work, aborts every request of the round.
 */
async function insertAll(
  dataset: Dataset,
  targets: ReadonlyArray<(text: AsyncIterable<string>) => Promise<void>>,
  route: Route,
  onRecords: (n: number) => void,
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
      while (Math.max(...sent) < RECORDS_PER_INSERT) {
        const step = await source.next();
        if (step.done) {
          finished = true;
          break;
        }
        const texts = targets.map(() => '');
        for (const record of step.value) {
          const i = route(record, batch);
          texts[i] += storedRecordToClickHouseTsv(record);
          sent[i]!++;
        }
        batch++;
        onRecords(step.value.length);
        await Promise.all(bodies.map((body, i) => body.push(texts[i]!)));
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
  const created: Array<{ connection: ClickHouseConnection; table: string }> = [];
  const total = dataset.records;
  try {
    if (cluster) await checkCluster(entry, cluster);
    for (const connection of [entry, ...shards]) await connection.command(`CREATE DATABASE IF NOT EXISTS ${sqlIdentifier(database)}`);
    if (cluster) {
      for (const shard of shards) {
        await shard.command(createTableSql(qualified(database, newLocal)), CREATE_SETTINGS);
        created.push({ connection: shard, table: newLocal });
      }
      await entry.command(createDistributedSql(qualified(database, newData), cluster.name, database, newLocal), CREATE_SETTINGS);
    } else {
      await entry.command(createTableSql(qualified(database, newData)), CREATE_SETTINGS);
    }
    created.push({ connection: entry, table: newData });

    let written = 0;
    // Rows go straight to each shard's local table, placed as the Distributed table's key would place them.
    const targets = cluster
      ? shards.map((shard) => (text: AsyncIterable<string>) => shard.insertTsv(qualified(database, newLocal), text, ONE_PART_AN_INSERT))
      : Array.from(
          { length: SINGLE_NODE_STREAMS },
          () => (text: AsyncIterable<string>) => entry.insertTsv(qualified(database, newData), text, ONE_PART_AN_INSERT),
        );
    const route: Route = cluster
      ? (record) => shardOfPid(pidOfStoredRecord(record), shards.length)
      : (_record, batch) => batch % SINGLE_NODE_STREAMS;
    // A progress callback that throws stops the load with its own error, not the aborted request's.
    let stopped: unknown = null;
    await insertAll(dataset, targets, route, (n) => {
      written += n;
      try {
        options.onProgress?.(written, total);
      } catch (error) {
        stopped = error;
        throw error;
      }
    }).catch((error: unknown) => {
      throw stopped ?? error;
    });

    const [[count]] = (await entry.rows(`SELECT count() FROM ${qualified(database, newData)}`)) as [[string]];
    if (Number(count) !== total)
      throw new Error(`ClickHouse holds ${count} of the dataset's ${total} records after the load; nothing was switched.`);

    const hashed = await hashedFields(entry, qualified(database, newData));
    await entry.command(createMetaSql(qualified(database, newMeta)));
    created.push({ connection: entry, table: newMeta });
    const meta: Array<[string, string]> = [
      ['load_id', id],
      ['loaded_at', new Date().toISOString()],
      ['source', basename(options.datasetPath)],
      ['created_at', dataset.meta.created_at ?? ''],
      ['records', String(total)],
      ['hashed_fields', JSON.stringify(hashed)],
    ];
    // Literals again (sqlLiteral.ts): a current server would take these as query parameters.
    await entry.command(
      `INSERT INTO ${qualified(database, newMeta)} VALUES ${meta.map(([k, v]) => `(${sqlString(k)}, ${sqlString(v)})`).join(', ')}`,
    );

    await (cluster ? switchCluster(entry, shards, database, id, cluster.name) : switchSingle(entry, database, id));
    created.length = 0;
    const seconds = (performance.now() - started) / 1000;
    return {
      records: total,
      seconds,
      recordsPerSecond: Math.round(total / seconds),
      table: qualified(database, DATA_TABLE),
      shards: shards.length || 1,
    };
  } finally {
    // A load that did not switch removes what it created; the previous tables were never touched.
    for (const { connection, table } of created.reverse())
      await connection.command(`DROP TABLE IF EXISTS ${qualified(database, table)}`).catch(() => undefined);
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

/** New tables take the names `people` and `people_meta` in one RENAME; the previous ones are dropped after. */
async function switchSingle(entry: ClickHouseConnection, database: string, id: string): Promise<void> {
  const renames: string[] = [];
  const old: string[] = [];
  for (const [current, fresh] of [
    [DATA_TABLE, `${DATA_TABLE}_new_${id}`],
    [META_TABLE, `${META_TABLE}_new_${id}`],
  ] as const) {
    if (await tableExists(entry, database, current)) {
      renames.push(`${qualified(database, current)} TO ${qualified(database, `${current}_old_${id}`)}`);
      old.push(`${current}_old_${id}`);
    }
    renames.push(`${qualified(database, fresh)} TO ${qualified(database, current)}`);
  }
  await entry.command(`RENAME TABLE ${renames.join(', ')}`);
  for (const table of old) await entry.command(`DROP TABLE IF EXISTS ${qualified(database, table)}`);
}

/**
 * Each shard renames its new local table to `people_local` (one shard after the other: for that
 * moment shards answer from different loads); the entry server's Distributed `people` reads
 * `people_local` on every shard, and its metadata switches last.
 */
async function switchCluster(
  entry: ClickHouseConnection,
  shards: ClickHouseConnection[],
  database: string,
  id: string,
  cluster: string,
): Promise<void> {
  const oldLocal = `${LOCAL_TABLE}_old_${id}`;
  const olds: ClickHouseConnection[] = [];
  for (const shard of shards) {
    const had = await tableExists(shard, database, LOCAL_TABLE);
    const renames = had ? [`${qualified(database, LOCAL_TABLE)} TO ${qualified(database, oldLocal)}`] : [];
    renames.push(`${qualified(database, `${LOCAL_TABLE}_new_${id}`)} TO ${qualified(database, LOCAL_TABLE)}`);
    await shard.command(`RENAME TABLE ${renames.join(', ')}`);
    if (had) olds.push(shard);
  }
  await entry.command(`DROP TABLE IF EXISTS ${qualified(database, `${DATA_TABLE}_new_${id}`)}`);
  if (!(await tableExists(entry, database, DATA_TABLE)))
    await entry.command(createDistributedSql(qualified(database, DATA_TABLE), cluster, database, LOCAL_TABLE), CREATE_SETTINGS);
  const hadMeta = await tableExists(entry, database, META_TABLE);
  const renames = hadMeta ? [`${qualified(database, META_TABLE)} TO ${qualified(database, `${META_TABLE}_old_${id}`)}`] : [];
  renames.push(`${qualified(database, `${META_TABLE}_new_${id}`)} TO ${qualified(database, META_TABLE)}`);
  await entry.command(`RENAME TABLE ${renames.join(', ')}`);
  if (hadMeta) await entry.command(`DROP TABLE IF EXISTS ${qualified(database, `${META_TABLE}_old_${id}`)}`);
  for (const shard of olds) await shard.command(`DROP TABLE IF EXISTS ${qualified(database, oldLocal)}`);
}

export type { ClickHouseCredentials };
