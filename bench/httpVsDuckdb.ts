// `npx tsx bench/httpVsDuckdb.ts [--rows 2000000] [--seed 1] [--repeat 20]`: issue 16's two
// comparisons with DuckDB alone, without the rest of `npm run bench` (whose DuckDB searches take
// most of its ~40 minutes at 2M): counts through our HTTP API against DuckDB counting in-process
// (median ratio, target at most 0.5 for every count), and our dataset file against DuckDB's database
// file of the same records (bytes a record). DuckDB holds the records in memory, as `npm run bench`
// does up to 2M. Uses bench/data/bench-<rows>-<seed>.sqlite (generated when missing or of an older
// format); writes bench/results-http-<rows>.json.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Dataset } from '../src/core/dataset/read/dataset';
import { EmbeddedEngine } from '../src/core/query/embeddedEngine';
import { BENCH_DATA_DIR, benchDataset } from './benchDataset';
import { DuckReference } from './duckdbReference';
import { compareHttpCounts } from './httpCounts';
import { machine } from './machine';
import { countAudiences } from './workload';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '2000000' },
    seed: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '20' },
  },
});
const rows = Number(values.rows);
const seed = Number(values.seed);
const repeat = Number(values.repeat);
const ranOn = machine();
const dataDir = BENCH_DATA_DIR;
const { path: datasetPath, verify } = benchDataset(rows, seed);

const dataset = Dataset.open(datasetPath);
console.log(`loading DuckDB (in memory) with the same ${dataset.records} records…`);
const { duck, seconds: duckLoadSeconds } = await DuckReference.load(dataset, join(dataDir, `bench-${rows}-${seed}.csv`));
const counts = countAudiences(new EmbeddedEngine(dataset, { backgroundVerify: false }));
const httpCounts = await compareHttpCounts(datasetPath, duck, counts, repeat);
const duckFileBytes = await duck.fileBytes({ where: 'memory' }, join(dataDir, `sized-${rows}-${seed}.duckdb`));
const fileBytes = statSync(datasetPath).size;
const records = dataset.records;
dataset.close();

const fmt = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
console.log(`\n${records} records; ${repeat} runs a count; ms`);
console.log(
  '| counts through HTTP | HTTP median | HTTP p95 | DuckDB in-process median | median ratio (HTTP/DuckDB) |\n|---|---|---|---|---|',
);
for (const r of httpCounts)
  console.log(`| ${r.what} | ${fmt(r.http.median)} | ${fmt(r.http.p95)} | ${fmt(r.duckdb.median)} | ${r.medianRatio.toFixed(2)} |`);
console.log(
  `dataset file: ${Math.round(fileBytes / records)} bytes a record; DuckDB's: ${Math.round(duckFileBytes / records)} (ratio ${(fileBytes / duckFileBytes).toFixed(2)})`,
);

const out = join(import.meta.dirname, `results-http-${records}.json`);
writeFileSync(
  out,
  JSON.stringify(
    {
      rows: records,
      repeat,
      duckdb: 'in memory',
      measuredAt: new Date().toISOString(),
      machine: ranOn,
      verify,
      httpCounts,
      storage: {
        fileBytes,
        bytesPerRecord: fileBytes / records,
        duckdbFileBytes: duckFileBytes,
        duckdbBytesPerRecord: duckFileBytes / records,
      },
      duckdbLoadSeconds: duckLoadSeconds,
    },
    null,
    2,
  ) + '\n',
);
console.log(`-> ${out}`);
process.exit(0);
