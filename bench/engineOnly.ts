// `npx tsx bench/engineOnly.ts FILE [--repeat R] [--no-export] [--generation-seconds S --generation-rss-mb M]`: the engine's own figures of one dataset file,
// without the DuckDB reference (whose load takes ~35 minutes at 10M records here): the file's bytes
// a record by part, the first use of a field (engine and HTTP, bench/coldFields.ts) and of `near` and
// households in California, counts with 1
// to 5 filters and the first pages of new audiences with the selection cache off, the same
// workload as `npm run bench` (bench/workload.ts), the process's peak memory, and an export of
// California to CSV in a process of its own (bench/exportChild.ts). Prints them and writes
// bench/results-engine-<records>.json. The ratios against DuckDB come from `npm run bench` only.
import Database from 'better-sqlite3';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { settings } from '../src/core/config';
import { Dataset } from '../src/core/dataset/read/dataset';
import { storedRecordsToJsonBytes } from '../src/core/dataset/codec/recordFormat';
import { EmbeddedEngine } from '../src/core/query/embeddedEngine';
import { householdNumbers } from '../src/core/query/householdNumbers';
import { normalizeAudienceRequest } from '../src/shared/audienceRequest';
import { cliVerify } from './cliVerify';
import { measureColdFieldsInChild } from './coldFieldsChild';
import { exportInChild } from './exportInChild';
import { machine } from './machine';
import { summarize, timeIt, type Summary } from './stats';
import { countAudiences, pagingAudiences, spreadSkips, type AudienceSpec } from './workload';

const { values, positionals } = parseArgs({
  options: {
    repeat: { type: 'string', default: '15' },
    'no-export': { type: 'boolean', default: false },
    // How the file was made, when it was timed outside (a `cli generate` under /usr/bin/time -v):
    // recorded beside the figures, for the table of sizes in docs/performance.md.
    'generation-seconds': { type: 'string' },
    'generation-rss-mb': { type: 'string' },
  },
  allowPositionals: true,
});
const path = positionals[0];
if (!path) throw new Error('usage: npx tsx bench/engineOnly.ts FILE [--repeat R]');
const repeat = Number(values.repeat);
const ranOn = machine();
// Before anything is measured, so its reading of the file does not overlap the figures.
const verify = cliVerify(path);

/** Bytes a record of the file and of its parts, as `sum(length(data))` of each table. */
interface Sizes {
  records: number;
  bytes: number;
  perRecord: number;
  blocks: number;
  vectors: number;
  rest: number;
}

function sizes(file: string): Sizes {
  const db = new Database(file, { readonly: true });
  try {
    const one = (sql: string) => Number(db.prepare(sql).pluck().get());
    const records = one("SELECT value FROM meta WHERE key = 'records'");
    const chunked = one("SELECT count(*) FROM sqlite_master WHERE name = 'vector_chunks'") === 1;
    const bytes = statSync(file).size;
    const blocks = one('SELECT sum(length(data)) FROM record_blocks');
    const vectors = one(`SELECT sum(length(data)) FROM ${chunked ? 'vector_chunks' : 'columns'}`);
    return {
      records,
      bytes,
      perRecord: bytes / records,
      blocks: blocks / records,
      vectors: vectors / records,
      rest: (bytes - blocks - vectors) / records,
    };
  } finally {
    db.close();
  }
}

const size = sizes(path);
console.log(
  `${size.records} records, ${(size.bytes / 1e9).toFixed(2)} GB: ${size.perRecord.toFixed(0)} bytes a record (blocks ${size.blocks.toFixed(0)}, vectors ${size.vectors.toFixed(0)}, rest ${size.rest.toFixed(0)})`,
);
// In a process of its own, so that the engine's peak memory below is the engine's (coldFieldsChild.ts).
const cold = measureColdFieldsInChild(path, 'CA');
const dataset = Dataset.open(path);
console.log(`format ${dataset.formatVersion}; first use of a field, count in CA: engine ${fmt(cold.engine)}, HTTP ${fmt(cold.http)}`);
// As in `npm run bench`: the cache and filters' bits off, so every count and first page does the whole work.
const engine = new EmbeddedEngine(dataset, { selectionCacheBytes: 0, filterBits: false, backgroundVerify: false });
// Large states' scans run on two cores once the engine's worker is up (query/twoCoreScan.ts), as in the app.
const splitFrom = settings().scanSplitFrom;
const splits = dataset.stateCounts().some((s) => s.count >= splitFrom);
const scanCores = splits && (await engine.twoCores?.whenRunning()) ? 2 : 1;
console.log(
  `scans of states of ${splitFrom.toLocaleString('en-US')} positions or more on two cores: ${splits ? `${scanCores} here` : 'no state that large'}`,
);
const request = (a: AudienceSpec) => normalizeAudienceRequest({ state: a.state, filters: a.filters });
const rows: Array<{ what: string; engine: Summary }> = [];

async function measure(what: string, cases: Array<() => unknown>): Promise<void> {
  const samples: number[] = [];
  for (const run of cases) {
    run(); // the first touch loads the vectors; the first use is measured above
    for (let i = 0; i < repeat; i++) samples.push(await timeIt(run));
  }
  rows.push({ what, engine: summarize(samples) });
  console.log(`${what}: ${fmt(rows.at(-1)!.engine)}`);
}

const counts = countAudiences(new EmbeddedEngine(dataset, { backgroundVerify: false }));
for (let k = 1; k <= 5; k++) {
  const group = counts.filter((a) => a.filters.length === k);
  await measure(
    `count, ${group[0]!.label}`,
    group.map((a) => () => engine.count(request(a))),
  );
}
for (const a of pagingAudiences()) {
  const total = engine.count(request(a));
  await measure(
    `preview 50 at 11 skips, ${a.label} (cache off)`,
    spreadSkips(total, 50).map((skip) => () => engine.previewPage(request(a), skip, 50)),
  );
  await measure(
    `search 100 full records at 11 skips, ${a.label} (cache off)`,
    spreadSkips(total, 100).map(
      (skip) => () => storedRecordsToJsonBytes('{"results":[', engine.recordPage(request(a), skip, 100).records, ']}'),
    ),
  );
}
// What the workloads left in memory of the vectors, against the budget (keptVectors.ts).
const vectorMemory = dataset.vectorMemory();
console.log(
  `vectors kept: ${(vectorMemory.bytes / 2 ** 20).toFixed(0)} MB of a ${(vectorMemory.budget / 2 ** 20).toFixed(0)} MB budget, ${vectorMemory.dropped} fields dropped`,
);
dataset.close();
// The engine's process after the workloads: the vectors it loaded, its working lists, the block cache.
const engineMaxRssMb = process.resourceUsage().maxRSS / 1024;
console.log(`peak RSS of the engine's process: ${Math.round(engineMaxRssMb)} MB`);

// What the first `near` and the first `households: "one"` in California read before they answer
// (kept per state after): coordinates (from their vectors when the file has them) and household
// numbers. Timed after the peak memory above is read, on a dataset of its own: the household
// numbers' strings would count in that peak, and their garbage would fall on the timed counts.
const forControls = Dataset.open(path);
const california = forControls.stateRange('CA');
const controlsFirstUse = {
  people: california.count,
  householdsFromHashes: forControls.householdCollisions() !== null,
  nearMs: await timeIt(() => forControls.coordinates(california)),
  householdsMs: await timeIt(() => householdNumbers(forControls, california)),
};
forControls.close();
console.log(
  `first use in CA of near: ${controlsFirstUse.nearMs.toFixed(0)} ms; of households (from ${controlsFirstUse.householdsFromHashes ? 'HHID hashes' : 'records'}): ${controlsFirstUse.householdsMs.toFixed(0)} ms`,
);
let exported: { records: number; seconds: number; maxRssMb: number; recordsPerSecond: number } | null = null;
if (!values['no-export']) {
  const csv = join(import.meta.dirname, 'data', `export-CA-${size.records}.csv`);
  const e = exportInChild(path, 'CA', csv);
  exported = { ...e, recordsPerSecond: e.records / e.seconds };
  rmSync(csv, { force: true });
  console.log(
    `export CA to CSV: ${e.records} records, ${Math.round(exported.recordsPerSecond)} records/s, peak RSS ${Math.round(e.maxRssMb)} MB`,
  );
}

const out = join(import.meta.dirname, `results-engine-${size.records}.json`);
writeFileSync(
  out,
  JSON.stringify(
    {
      measuredAt: new Date().toISOString(),
      machine: ranOn,
      file: path,
      formatVersion: dataset.formatVersion,
      verify,
      repeat,
      size,
      coldFields: cold,
      controlsFirstUse,
      workloads: rows,
      engineMaxRssMb,
      vectorMemory,
      scanCores,
      export: exported,
      generation:
        values['generation-seconds'] === undefined
          ? null
          : {
              seconds: Number(values['generation-seconds']),
              maxRssMb: values['generation-rss-mb'] ? Number(values['generation-rss-mb']) : null,
            },
    },
    null,
    2,
  ) + '\n',
);
console.log(`-> ${out}`);

function fmt(s: Summary): string {
  return `median ${s.median.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms (n ${s.n})`;
}
