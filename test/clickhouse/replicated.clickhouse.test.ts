// A replicated cluster (2 shards x 2 replicas with a ZooKeeper, ./support/replicatedCluster.ts):
// `clickhouse load --cluster` creates ReplicatedMergeTree tables and the Distributed table on every
// node with ON CLUSTER (and replaces a Distributed table that is missing or stale); any node answers as
// the embedded engine does; a reload under traffic fails no request and holds none on its switch; a
// replica stopped in the middle of 200 requests fails none of them; and an engine given several nodes
// answers through another when its entry node stops.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { ClickHouseConnection, type ClickHouseTarget } from '../../src/core/clickhouse/connection';
import { PASSWORD_ENV, USER_ENV } from '../../src/core/clickhouse/credentials';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { SHARDING_KEY_SQL } from '../../src/core/clickhouse/sharding';
import { cli } from '../support/cli';
import { describeClickHouse } from './support/localClickHouse';
import { LOADER, READER } from './support/localServers';
import { REPLICATED_CLUSTER, startReplicatedCluster, type ReplicatedCluster } from './support/replicatedCluster';
import { expectNoWaitAcross, pairsWhileStopping, trafficDuring } from './support/traffic';
import { startTwoCores } from './support/twoCores';

const DATABASE = 'replicated_tests';
/** The bound: no request made during a load and switch waits longer than this on the switch. */

describeClickHouse('a replicated cluster (2 shards x 2 replicas, ZooKeeper)', () => {
  let root: string;
  let cluster: ReplicatedCluster;
  const target = (url: string, who: typeof LOADER): ClickHouseTarget => ({ url, database: DATABASE, credentials: { ...who } });
  const load = () =>
    loadIntoClickHouse({
      datasetPath: inject('datasetPath'),
      target: target(cluster.nodes[0].url, LOADER),
      cluster: { name: REPLICATED_CLUSTER, shardUrls: [cluster.nodes[0].url, cluster.nodes[2].url] },
    });
  /** Runs `work` with a loading connection to one node. */
  async function onNode<T>(url: string, work: (c: ClickHouseConnection) => Promise<T>): Promise<T> {
    const connection = new ClickHouseConnection(target(url, LOADER));
    try {
      return await work(connection);
    } finally {
      await connection.close();
    }
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'audience-desk-replicated-'));
    cluster = await startReplicatedCluster(root);
    await load();
  }, 300_000);
  afterAll(async () => {
    await cluster?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('puts replicated tables on every node, each replica of a shard holding the same rows', async () => {
    const counts: number[] = [];
    for (const node of cluster.nodes)
      await onNode(node.url, async (c) => {
        expect(await c.text(`SHOW CREATE TABLE ${DATABASE}.people_local`)).toContain('ReplicatedMergeTree(');
        expect(await c.text(`SHOW CREATE TABLE ${DATABASE}.people_meta`)).toContain('ReplicatedMergeTree(');
        expect(await c.text(`SHOW CREATE TABLE ${DATABASE}.people`)).toContain(`people_local, ${SHARDING_KEY_SQL})`);
        counts.push(Number((await c.text(`SELECT count() FROM ${DATABASE}.people_local`)).trim()));
        // Every node reads the whole dataset through its Distributed table.
        expect(Number((await c.text(`SELECT count() FROM ${DATABASE}.people`)).trim())).toBe(inject('testRows'));
      });
    expect(counts[0]).toBe(counts[1]);
    expect(counts[2]).toBe(counts[3]);
    expect(counts[0]! + counts[2]!).toBe(inject('testRows'));
    expect(Math.min(counts[0]!, counts[2]!)).toBeGreaterThan(inject('testRows') * 0.45);
  });

  it('a new load replaces a Distributed table that a node lacks or that is stale, on every node', async () => {
    await onNode(cluster.nodes[3].url, (c) => c.command(`DROP TABLE ${DATABASE}.people`));
    await onNode(cluster.nodes[1].url, async (c) => {
      await c.command(`DROP TABLE ${DATABASE}.people`);
      await c.command(
        `CREATE TABLE ${DATABASE}.people AS ${DATABASE}.people_local ENGINE = Distributed(${REPLICATED_CLUSTER}, ${DATABASE}, people_local, rand())`,
      );
    });
    await load();
    for (const node of cluster.nodes)
      await onNode(node.url, async (c) => {
        expect(await c.text(`SHOW CREATE TABLE ${DATABASE}.people`)).toContain(`people_local, ${SHARDING_KEY_SQL})`);
        // Nothing of either load is left behind under another name.
        expect((await c.rows(`SHOW TABLES FROM ${DATABASE}`)).map((r) => r[0])).toEqual(['people', 'people_local', 'people_meta']);
      });
  });

  // Before the test that stops a replica: a load writes to every replica (insert_quorum, ON CLUSTER).
  it('reloads under traffic: every request made during the load and its switch answers as before, none waiting on it', async () => {
    const bodies = [
      ['/api/audiences/preview', { state: 'CA', filters: [['GENDER', ['F']]], limit: 50, skip: 120 }],
      ['/api/audiences/search', { state: 'TX', filters: [['AGE', ['30-49']]], limit: 20, skip: 7 }],
      ['/api/audiences/search', { state: 'NY', limit: 100, skip: 40 }],
    ] as const;
    // No cache: every request reaches the cluster, during the load and across the switch.
    const cores = await startTwoCores(inject('datasetPath'), target(cluster.nodes[0].url, READER), { cacheBytes: 0 });
    try {
      const expected = await Promise.all(bodies.map(async ([path, body]) => (await cores.embedded.post(path, body)).text()));
      for (const [path, body] of bodies) expect((await cores.clickhouse.post(path, body)).status).toBe(200);
      // As it runs for real: `cli clickhouse load --cluster` in its own process.
      const shardUrls = [cluster.nodes[0].url, cluster.nodes[2].url].join(',');
      const { answers, result: loaded } = await trafficDuring(cores.clickhouse.post, bodies, expected, () =>
        cli(
          [
            ...['clickhouse', 'load', '--db', inject('datasetPath'), '--url', cluster.nodes[0].url, '--database', DATABASE],
            ...['--cluster', REPLICATED_CLUSTER, '--shard-urls', shardUrls],
          ],
          { env: { ...process.env, [USER_ENV]: LOADER.username, [PASSWORD_ENV]: LOADER.password } },
        ),
      );
      expect(loaded.code, loaded.stderr).toBe(0);
      const { loadId } = JSON.parse(loaded.stdout) as { loadId: string };

      // The switch as the entry node logged it: its RENAMEs ON CLUSTER (type 2: finished; times to the
      // second), each answered once every node had run it.
      const [[startedAt, finishedAt, switches]] = (await onNode(cluster.nodes[0].url, async (c) => {
        await c.command('SYSTEM FLUSH LOGS');
        return c.rows(
          `SELECT min(toUnixTimestamp(query_start_time)), max(toUnixTimestamp(event_time)), count() FROM system.query_log ` +
            `WHERE toUInt8(type) = 2 AND query LIKE 'RENAME TABLE%${loadId}% ON CLUSTER%'`,
        );
      })) as [[string, string, string]];
      expect(Number(switches)).toBe(3);
      expectNoWaitAcross(answers, Number(startedAt) * 1000, (Number(finishedAt) + 1) * 1000);
    } finally {
      await cores.close();
    }
  }, 600_000);

  it('answers through any node as the embedded engine does, and a replica stopped mid-way fails no request', async () => {
    const bodies = [
      ['/api/audiences/preview', { state: 'CA', filters: [['GENDER', ['F']]], limit: 50, skip: 120 }],
      ['/api/audiences/search', { state: 'TX', filters: [['AGE', ['30-49']]], limit: 20, skip: 7 }],
      ['/api/audiences/preview', { state: 'NY', limit: 100, households: 'one' }],
      ['/api/audiences/preview', { state: 'PA', filters: [['HOMEOWNERC', ['H']]], limit: 10, skip: 300 }],
    ] as const;
    // The second shard's second replica answers like the first node.
    const other = await startTwoCores(inject('datasetPath'), target(cluster.nodes[3].url, READER), { cacheBytes: 0 });
    const cores = await startTwoCores(inject('datasetPath'), target(cluster.nodes[0].url, READER), { cacheBytes: 0 });
    try {
      const expected = await Promise.all(bodies.map(async ([path, body]) => (await cores.embedded.post(path, body)).text()));
      for (const [i, [path, body]] of bodies.entries()) expect(await (await other.clickhouse.post(path, body)).text()).toBe(expected[i]);

      // Two requests at a time; after the 50th round the first shard's second replica stops (SIGTERM).
      const failures = await pairsWhileStopping(cores.clickhouse.post, bodies, expected, {
        rounds: 200,
        stopAt: 50,
        awaitAt: 100,
        stop: () => cluster.stopNode(cluster.nodes[1]),
      });
      expect(cluster.nodes[1].process.exitCode !== null || cluster.nodes[1].process.signalCode !== null).toBe(true);
      expect(failures).toEqual([]);
    } finally {
      await cores.close();
      await other.close();
    }
  }, 600_000);

  // Last: it stops a second node (the first shard keeps nodes[0], the second nodes[3]).
  it('answers through another node when its entry node stops, failing no request', async () => {
    const bodies = [
      ['/api/audiences/preview', { state: 'CA', filters: [['GENDER', ['F']]], limit: 50, skip: 120 }],
      ['/api/audiences/search', { state: 'TX', filters: [['AGE', ['30-49']]], limit: 20, skip: 7 }],
      ['/api/audiences/search', { state: 'NY', limit: 100, skip: 40 }],
    ] as const;
    const entry = cluster.nodes[2];
    const cores = await startTwoCores(
      inject('datasetPath'),
      { ...target(entry.url, READER), fallbackUrls: [cluster.nodes[0].url] },
      { cacheBytes: 0 },
    );
    try {
      const expected = await Promise.all(bodies.map(async ([path, body]) => (await cores.embedded.post(path, body)).text()));
      // Two requests at a time; after the 30th round the entry node stops (SIGTERM).
      const failures = await pairsWhileStopping(cores.clickhouse.post, bodies, expected, {
        rounds: 100,
        stopAt: 30,
        awaitAt: 50,
        stop: () => cluster.stopNode(entry),
      });
      expect(entry.process.exitCode !== null || entry.process.signalCode !== null).toBe(true);
      expect(failures).toEqual([]);
    } finally {
      await cores.close();
    }
  }, 600_000);
});
