// A replicated cluster (2 shards x 2 replicas with a ZooKeeper, ./support/replicatedCluster.ts):
// `clickhouse load --cluster` creates ReplicatedMergeTree tables and the Distributed table on every
// node with ON CLUSTER (and replaces a Distributed table that is missing or stale); any node answers as
// the embedded engine does; and a replica stopped in the middle of 200 requests fails none of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { ClickHouseConnection, type ClickHouseTarget } from '../../src/core/clickhouse/connection';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { SHARDING_KEY_SQL } from '../../src/core/clickhouse/sharding';
import { describeClickHouse } from './support/localClickHouse';
import { LOADER, READER } from './support/localServers';
import { REPLICATED_CLUSTER, startReplicatedCluster, type ReplicatedCluster } from './support/replicatedCluster';
import { startTwoCores } from './support/twoCores';

const DATABASE = 'replicated_tests';

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

      const failures: unknown[] = [];
      let stopped: Promise<void> | null = null;
      for (let i = 0; i < 200; i++) {
        // Two requests at a time; after the 50th the first shard's second replica stops (SIGTERM).
        if (i === 50) stopped = cluster.stopNode(cluster.nodes[1]);
        const pair = [i, i + 100].map(async (k) => {
          const [path, body] = bodies[k % bodies.length]!;
          const response = await cores.clickhouse.post(path, body);
          const text = await response.text();
          if (response.status !== 200 || text !== expected[k % bodies.length])
            failures.push({ k, status: response.status, text: text.slice(0, 300) });
        });
        await Promise.all(pair);
        if (i === 100) await stopped;
      }
      expect(cluster.nodes[1].process.exitCode !== null || cluster.nodes[1].process.signalCode !== null).toBe(true);
      expect(failures).toEqual([]);
    } finally {
      await cores.close();
      await other.close();
    }
  }, 600_000);
});
