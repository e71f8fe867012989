// `npm run bench -- --rows N [--seed S] [--repeat R] [--duckdb memory|file] [--duckdb-memory 6GB] [--no-http] [--engine clickhouse [--topologies both|single|two-shards]]`:
// the engine against DuckDB on the same records, same process. Prints a table of medians and p95s
// with their ratio and writes bench/results-<rows>.json. DuckDB holds the records in memory up to
// 2M records and in a persistent database file beyond (see duckdbReference.ts); --no-http leaves
// the HTTP load to `bench/http.ts --record`, e.g. to measure it on a quieter machine.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Dataset } from '../src/core/dataset/read/dataset';
import { storedRecordsToJsonBytes } from '../src/core/dataset/codec/recordFormat';
import { generateDataset } from '../src/core/generate';
import { EmbeddedEngine } from '../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../src/shared/audienceRequest';
import { runClickHouseBench, type Topologies } from './clickhouse/run';
import { BENCH_DATA_DIR, benchDataset } from './benchDataset';
import { measureColdFields } from './coldFields';
import { exportInChild } from './exportInChild';
import { DuckReference } from './duckdbReference';
import { compareHttpCounts } from './httpCounts';
import { httpLoad } from './httpLoad';
import { measureListControls } from './listControls';
import { machine } from './machine';
import { summarize, timeIt, type Summary } from './stats';
import { countAudiences, pagingAudiences, spreadSkips, type AudienceSpec } from './workload';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '15' },
    duckdb: { type: 'string' },
    'duckdb-memory': { type: 'string', default: '6GB' },
    'no-http': { type: 'boolean', default: false },
    // `--engine clickhouse`: the ClickHouse engine beside the embedded one (bench/clickhouse/run.ts).
    engine: { type: 'string', default: 'embedded' },
    // With --engine clickhouse: both (default), single or two-shards.
    topologies: { type: 'string', default: 'both' },
  },
});
if (values.engine !== 'embedded' && values.engine !== 'clickhouse') throw new Error('--engine is embedded (the default) or clickhouse');
if (values.engine === 'clickhouse') {
  if (!['both', 'single', 'two-shards'].includes(values.topologies)) throw new Error('--topologies is both, single or two-shards');
  await runClickHouseBench({
    rows: Number(values.rows),
    seed: Number(values.seed),
    repeat: Number(values.repeat),
    topologies: values.topologies as Topologies,
  });
  process.exit(0);
}
const rows = Number(values.rows);
const seed = Number(values.seed);
const ranOn = machine();
const repeat = Number(values.repeat);
const dataDir = BENCH_DATA_DIR;
const bench = benchDataset(rows, seed);
const datasetPath = bench.path;
let generation = bench.generation;
const startOpen = performance.now();
const dataset = Dataset.open(datasetPath);
const openMs = performance.now() - startOpen;
// The cache would answer repeated identical queries from memory: off, so every run does the work.
// Filters' bits too (query/filterBits.ts): a query's repeats would count from the bits its second run
// built, so the figures would be of them and not of the scan; bench:first measures them as users get them.
// No background verify: it would read the whole file on the other core while the figures are taken.
const engine = new EmbeddedEngine(dataset, { selectionCacheBytes: 0, filterBits: false, backgroundVerify: false });
const warmEngine = new EmbeddedEngine(dataset, { backgroundVerify: false });
const duckOnDisk = (values.duckdb ?? (rows > 2_000_000 ? 'file' : 'memory')) === 'file';
const duckStorage = duckOnDisk
  ? { where: join(dataDir, `bench-${rows}-${seed}.duckdb`), memoryLimit: values['duckdb-memory'] }
  : { where: 'memory' as const };
console.log(
  `loading DuckDB (${duckOnDisk ? `database file, memory_limit ${duckStorage.memoryLimit}` : 'in memory'}) with the same ${dataset.records} records…`,
);
const {
  duck,
  seconds: duckLoadSeconds,
  reused: duckReused,
} = await DuckReference.load(dataset, join(dataDir, `bench-${rows}-${seed}.csv`), duckStorage);

const request = (a: AudienceSpec, limit = 0, skip = 0) => normalizeAudienceRequest({ state: a.state, filters: a.filters, limit, skip });
const rowsOut: Array<{ what: string; engine: Summary; duckdb: Summary }> = [];

async function compare(what: string, cases: Array<{ ours: () => unknown; theirs: () => Promise<unknown> }>): Promise<void> {
  const ours: number[] = [];
  const theirs: number[] = [];
  for (const c of cases) {
    c.ours(); // first touch loads the field vectors; steady state is what is measured
    await c.theirs();
    for (let i = 0; i < repeat; i++) {
      ours.push(await timeIt(c.ours));
      theirs.push(await timeIt(c.theirs));
    }
  }
  rowsOut.push({ what, engine: summarize(ours), duckdb: summarize(theirs) });
}

const counts = countAudiences(warmEngine);
for (let k = 1; k <= 5; k++) {
  const group = counts.filter((a) => a.filters.length === k);
  await compare(
    `count, ${group[0]!.label}`,
    group.map((a) => ({ ours: () => engine.count(request(a)), theirs: () => duck.count(a.state, a.filters) })),
  );
}

// The same counts through the HTTP API (a request a count, keep-alive), against DuckDB in-process.
const httpCounts = await compareHttpCounts(datasetPath, duck, counts, repeat);
for (const a of pagingAudiences()) {
  const total = engine.count(request(a));
  await compare(
    `preview 50 at 11 skips, ${a.label} (cache off)`,
    spreadSkips(total, 50).map((skip) => ({
      ours: () => engine.previewPage(request(a), skip, 50),
      theirs: () => duck.previewPids(a.state, a.filters, 50, skip),
    })),
  );
  await compare(
    `preview 50 at 11 skips, ${a.label} (paging a cached audience)`,
    spreadSkips(total, 50).map((skip) => ({
      ours: () => warmEngine.previewPage(request(a), skip, 50),
      theirs: () => duck.previewPids(a.state, a.filters, 50, skip),
    })),
  );
  await compare(
    `search 100 full records at 11 skips, ${a.label}`,
    spreadSkips(total, 100).map((skip) => ({
      // The page rendered as the API renders it (searchAnswerJson), from the stored bytes.
      ours: () => storedRecordsToJsonBytes('{"results":[', engine.recordPage(request(a), skip, 100).records, ']}'),
      theirs: () => duck.searchPids(a.state, a.filters, 100, skip),
    })),
  );
}

const listControls = await measureListControls(engine, warmEngine, 'CA', repeat);
const coldFields = await measureColdFields(datasetPath, 'CA');
const duckFileBytes = await duck.fileBytes(duckStorage, join(dataDir, `sized-${rows}-${seed}.duckdb`));
const fileBytes = statSync(datasetPath).size;

// Export of the largest state, in a child process for a clean peak-memory figure.
const exportOut = join(dataDir, 'export-CA.csv');
const exported = exportInChild(datasetPath, 'CA', exportOut);
const duckExportMs = await timeIt(() => duck.exportCsv('CA', join(dataDir, 'export-CA-duckdb.csv')));

if (!generation) {
  const tmp = mkdtempSync(join(tmpdir(), 'audience-desk-bench-gen-'));
  generation = generateDataset({ rows: 100_000, seed: 7, out: join(tmp, 'g.sqlite') });
  rmSync(tmp, { recursive: true, force: true });
}
let http: Awaited<ReturnType<typeof httpLoad>> | null = null;
if (!values['no-http']) {
  const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-home-'));
  http = await httpLoad(datasetPath, home);
  rmSync(home, { recursive: true, force: true });
}

const fmt = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
console.log(`\n${dataset.records} records (${(statSync(datasetPath).size / 1e9).toFixed(2)} GB file); ${repeat} runs a query; ms`);
console.log(
  '| workload | engine median | engine p95 | DuckDB median | DuckDB p95 | p95 ratio (engine/DuckDB) |\n|---|---|---|---|---|---|',
);
for (const r of rowsOut)
  console.log(
    `| ${r.what} | ${fmt(r.engine.median)} | ${fmt(r.engine.p95)} | ${fmt(r.duckdb.median)} | ${fmt(r.duckdb.p95)} | ${(r.engine.p95 / r.duckdb.p95).toFixed(2)} |`,
  );
console.log(
  '\n| counts through HTTP | HTTP median | HTTP p95 | DuckDB in-process median | median ratio (HTTP/DuckDB) |\n|---|---|---|---|---|',
);
for (const r of httpCounts)
  console.log(`| ${r.what} | ${fmt(r.http.median)} | ${fmt(r.http.p95)} | ${fmt(r.duckdb.median)} | ${r.medianRatio.toFixed(2)} |`);
console.log('\n| list controls (extensions.md), cache off | engine median | engine p95 | p95 / plain count p95 |\n|---|---|---|---|');
for (const r of listControls.rows) console.log(`| ${r.what} | ${fmt(r.engine.median)} | ${fmt(r.engine.p95)} | ${r.ratio.toFixed(2)} |`);
console.log(
  `first use in a state: household numbers ${listControls.firstUseMs.households.toFixed(0)} ms, an exclusion's marks ${listControls.firstUseMs.exclusion.toFixed(0)} ms`,
);
console.log(
  `first use of a field (cold: its vector read, checked, decompressed), count in CA, ${coldFields.engine.n} fields: engine median ${fmt(coldFields.engine.median)} ms, p95 ${fmt(coldFields.engine.p95)} ms; HTTP median ${fmt(coldFields.http.median)} ms, p95 ${fmt(coldFields.http.p95)} ms`,
);
console.log(
  `dataset file (format ${dataset.formatVersion}): ${(fileBytes / 1e6).toFixed(1)} MB, ${Math.round(fileBytes / dataset.records)} bytes a record; DuckDB's database file of the same records: ${(duckFileBytes / 1e6).toFixed(1)} MB, ${Math.round(duckFileBytes / dataset.records)} bytes a record (ratio ${(fileBytes / duckFileBytes).toFixed(2)})`,
);
const exportRate = exported.records / exported.seconds;
console.log(
  `export CA to CSV: ${exported.records} records, ${Math.round(exportRate)} records/s, peak RSS ${Math.round(exported.maxRssMb)} MB (DuckDB COPY: ${Math.round(exported.records / (duckExportMs / 1000))} records/s)`,
);
if (http)
  console.log(
    `HTTP, 16 connections, 10 s, mixed preview/search: ${Math.round(http.requestsPerSecond)} requests/s, p99 ${http.p99Ms} ms, non-2xx ${http.non2xx}; CPU ms a request: server ${http.serverCpuMsPerRequest?.toFixed(3)}, load generator ${http.loadGeneratorCpuMsPerRequest.toFixed(3)}`,
  );
console.log(
  `generation: ${Math.round(generation.records / generation.seconds)} records/s; dataset open: ${openMs.toFixed(0)} ms; serve start-up to first answer (incl. tsx): ${http ? http.startupMs.toFixed(0) + ' ms' : 'not measured'}; DuckDB load: ${duckLoadSeconds.toFixed(1)} s${duckReused ? ' (reused its database file)' : ''}`,
);

writeFileSync(
  join(import.meta.dirname, `results-${rows}.json`),
  JSON.stringify(
    {
      rows: dataset.records,
      repeat,
      duckdb: duckOnDisk ? `persistent database file, memory_limit ${duckStorage.memoryLimit}` : 'in memory',
      measuredAt: new Date().toISOString(),
      machine: ranOn,
      verify: bench.verify,
      workloads: rowsOut,
      httpCounts,
      listControls,
      coldFields,
      storage: {
        formatVersion: dataset.formatVersion,
        fileBytes,
        bytesPerRecord: fileBytes / dataset.records,
        duckdbFileBytes: duckFileBytes,
        duckdbBytesPerRecord: duckFileBytes / dataset.records,
      },
      export: {
        ...exported,
        recordsPerSecond: exportRate,
        duckdbRecordsPerSecond: exported.records / (duckExportMs / 1000),
      },
      http,
      duckdbLoadSeconds: duckReused ? null : duckLoadSeconds,
      generationRecordsPerSecond: generation.records / generation.seconds,
      datasetOpenMs: openMs,
    },
    null,
    2,
  ) + '\n',
);
dataset.close();
