// The ClickHouse engine beside the embedded engine on the same records: `npm run bench -- --engine
// clickhouse --rows N [--seed S] [--repeat R]` (or `npx tsx bench/clickhouse/run.ts …`). Starts local
// servers (a single node and two shards on this machine), loads the dataset into each (load rate),
// then times counts, first pages of new audiences, deep pages, search pages of 100 and an export,
// every cache off, and writes bench/results-clickhouse-<rows>.json.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ClickHouseEngine } from '../../src/core/clickhouse/clickhouseEngine';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import type { AudienceEngine } from '../../src/core/audience/contract/engine';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { CLUSTER_NAME, LOADER, READER, startLocalClickHouse } from '../../test/clickhouse/support/localServers';
import { summarize, timeIt, type Summary } from '../stats';
import { countAudiences, pagingAudiences, spreadSkips, type AudienceSpec } from '../workload';

/** Which ClickHouse topologies a run loads and times (a 10M load takes most of an hour a topology here). */
export type Topologies = 'both' | 'single' | 'two-shards';

export async function runClickHouseBench(options: { rows: number; seed: number; repeat: number; topologies?: Topologies }): Promise<void> {
  const { rows, seed, repeat } = options;
  const topologies = options.topologies ?? 'both';
  const withSingle = topologies !== 'two-shards';
  const withCluster = topologies !== 'single';
  const dataDir = join(import.meta.dirname, '..', 'data');
  mkdirSync(dataDir, { recursive: true });
  const datasetPath = join(dataDir, `bench-${rows}-${seed}.sqlite`);
  if (!existsSync(datasetPath)) {
    console.log(`generating ${rows} records…`);
    generateDataset({ rows, seed, out: datasetPath });
  }
  const root = mkdtempSync(join(tmpdir(), 'audience-desk-chbench-'));
  const servers = await startLocalClickHouse(root);
  const database = 'audience_desk';
  const results: Record<string, unknown> = { rows, seed, repeat, measuredAt: new Date().toISOString() };
  try {
    const single = { url: servers.single.url, database, credentials: LOADER };
    const cluster = { url: servers.shards[0].url, database, credentials: LOADER };
    const loads: Record<string, Awaited<ReturnType<typeof loadIntoClickHouse>>> = {};
    if (withSingle) {
      console.log('loading the single node…');
      loads.single = await loadIntoClickHouse({ datasetPath, target: single });
      console.log(`  ${loads.single.recordsPerSecond} records/s`);
    }
    if (withCluster) {
      console.log('loading the two shards…');
      loads.twoShards = await loadIntoClickHouse({
        datasetPath,
        target: cluster,
        cluster: { name: CLUSTER_NAME, shardUrls: servers.shards.map((s) => s.url) },
      });
      console.log(`  ${loads.twoShards.recordsPerSecond} records/s`);
    }
    results.load = loads;

    const embedded = new EmbeddedEngine(Dataset.open(datasetPath), { selectionCacheBytes: 0 });
    const open = (target: typeof single) =>
      ClickHouseEngine.open({ ...target, credentials: READER }, { cacheBytes: 0, queryBudgetSeconds: 0 });
    const engines: Array<[string, AudienceEngine]> = [['embedded', embedded]];
    if (withSingle) engines.push(['clickhouse single', await open(single)]);
    if (withCluster) engines.push(['clickhouse 2 shards', await open(cluster)]);
    const audience = (spec: AudienceSpec) => normalizeAudienceRequest({ state: spec.state, filters: spec.filters });
    const counts = countAudiences(embedded);
    const paging = pagingAudiences();
    const table: Record<string, Record<string, Summary | number>> = {};
    const put = (workload: string, engine: string, value: Summary | number) => ((table[workload] ??= {})[engine] = value);
    for (const [name, engine] of engines) {
      console.log(`timing ${name}…`);
      const countTimes: number[] = [];
      const firstPages: number[] = [];
      for (let r = 0; r < repeat; r++)
        for (const spec of counts) {
          countTimes.push(await timeIt(() => engine.count(audience(spec))));
          firstPages.push(await timeIt(() => engine.previewPage(audience(spec), 0, 50)));
        }
      put('count, 1-5 filters', name, summarize(countTimes));
      put('first preview page (50) of a new audience', name, summarize(firstPages));
      for (const spec of paging) {
        const total = await engine.count(audience(spec));
        const deep: number[] = [];
        const search: number[] = [];
        for (let r = 0; r < Math.max(1, Math.floor(repeat / 3)); r++)
          for (const skip of spreadSkips(total, 100)) {
            deep.push(await timeIt(() => engine.previewPage(audience(spec), skip, 50)));
            search.push(await timeIt(() => engine.recordPage(audience(spec), skip, 100)));
          }
        put(`preview 50 at 11 skips, ${spec.label}`, name, summarize(deep));
        put(`search 100 at 11 skips, ${spec.label}`, name, summarize(search));
      }
      const started = performance.now();
      const stream = await engine.records(audience({ label: 'CA', state: 'CA', filters: [] }));
      let exported = 0;
      for await (const batch of stream.batches(2000)) exported += batch.length;
      put('export of CA (records/s)', name, Math.round(exported / ((performance.now() - started) / 1000)));
    }
    results.table = table;
    for (const [, engine] of engines) engine.close();
    const format = (v: Summary | number | undefined) =>
      v === undefined ? '' : typeof v === 'number' ? String(v) : `${v.median.toFixed(1)} / ${v.p95.toFixed(1)}`;
    console.log(`\n| workload (${rows} records; ms median / p95) | ${engines.map(([n]) => n).join(' | ')} |`);
    console.log(`|---|${engines.map(() => '---').join('|')}|`);
    for (const [workload, byEngine] of Object.entries(table))
      console.log(`| ${workload} | ${engines.map(([n]) => format(byEngine[n])).join(' | ')} |`);
    console.log(
      `| load (records/s) | | ${Object.values(loads)
        .map((l) => l.recordsPerSecond)
        .join(' | ')} |`,
    );
    const suffix = topologies === 'both' ? '' : `-${topologies}`;
    writeFileSync(join(import.meta.dirname, '..', `results-clickhouse-${rows}${suffix}.json`), JSON.stringify(results, null, 2) + '\n');
  } finally {
    await servers.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '1' },
      repeat: { type: 'string', default: '5' },
      topologies: { type: 'string', default: 'both' },
    },
  });
  await runClickHouseBench({
    rows: Number(values.rows),
    seed: Number(values.seed),
    repeat: Number(values.repeat),
    topologies: values.topologies as Topologies,
  });
}
