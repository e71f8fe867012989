// `npx tsx bench/readmeTables.ts [--check]`: the README's tables of issue 16's targets and of sizes,
// made from the results JSON under bench/ (bench/engineOnly.ts, bench/httpVsDuckdb.ts), each figure
// with the file, the day and the machine it comes from. Writes them between the README's
// `<!-- bench:tables -->` markers; --check exits 1 when the README's tables are not the JSON's
// (test/bench/readmeTables.test.ts runs it), so a table cannot drift from its measurement.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Machine } from './machine';
import type { Summary } from './stats';

const BENCH_DIR = import.meta.dirname;
export const README_PATH = join(BENCH_DIR, '..', 'README.md');
const START = '<!-- bench:tables -->';
const END = '<!-- /bench:tables -->';

interface Workload {
  what: string;
  engine: Summary;
}

interface EngineResults {
  measuredAt: string;
  machine?: Machine;
  formatVersion: string;
  size: { records: number; bytes: number; perRecord: number; blocks: number; vectors: number; rest: number };
  coldFields: {
    engine: Summary;
    http: Summary;
    slowest?: { engine: Array<{ field: string; ms: number }> };
    /** A fresh server's first answer, timed apart from the fields (since 27 November). */
    firstHttpRequestMs?: number;
  };
  workloads: Workload[];
  engineMaxRssMb?: number;
  /** Cores a large state's scan ran on (bench/engineOnly.ts since 27 November; one before). */
  scanCores?: number;
  export?: { records: number; recordsPerSecond: number; maxRssMb: number } | null;
  generation?: { seconds: number; maxRssMb: number | null } | null;
}

interface HttpResults {
  rows: number;
  measuredAt: string;
  machine?: Machine;
  httpCounts: Array<{ what: string; http: Summary; duckdb: Summary; medianRatio: number }>;
  storage: { bytesPerRecord: number; duckdbBytesPerRecord: number };
}

function read<T>(name: string): { name: string; data: T } | null {
  const path = join(BENCH_DIR, name);
  return existsSync(path) ? { name, data: JSON.parse(readFileSync(path, 'utf8')) as T } : null;
}

const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const range = (xs: number[]) => (xs.length === 0 ? 'n/a' : `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}`);
const day = (iso: string) => iso.slice(0, 10);
const yes = (ok: boolean) => (ok ? 'yes' : '**no**');

function machineNote(m: Machine | undefined): string {
  if (!m) return 'machine not recorded (the 2-core shared VM of these notes)';
  return `${m.cpus} cores (${m.cpuModel}), ${m.memoryGb} GiB, Node ${m.node}, load ${m.loadAverage} at the start`;
}

const firstRequest = (r: EngineResults) =>
  r.coldFields.firstHttpRequestMs === undefined
    ? ''
    : `; a fresh server's first answer, timed apart: ${ms(r.coldFields.firstHttpRequestMs)} ms`;
const counts = (r: EngineResults) => r.workloads.filter((w) => w.what.startsWith('count,'));
const firstPages = (r: EngineResults) => r.workloads.filter((w) => w.what.includes('seed filters'));
const searches = (r: EngineResults) => r.workloads.filter((w) => w.what.startsWith('search 100'));
const maxP95 = (ws: Workload[]) => Math.max(...ws.map((w) => w.engine.p95));
const slowest = (r: EngineResults) =>
  r.coldFields.slowest ? `; slowest in the engine: ${r.coldFields.slowest.engine.map((f) => `${f.field} ${ms(f.ms)}`).join(', ')}` : '';

/** The markdown between the markers: the targets, then the sizes. */
export function renderTables(): string {
  const sample = read<EngineResults>('results-engine-100000.json');
  const byScale = [1_000_000, 10_000_000, 30_000_000]
    .map((n) => read<EngineResults>(`results-engine-${n}.json`))
    .filter((r): r is { name: string; data: EngineResults } => r !== null);
  const ten = byScale.find((r) => r.data.size.records === 10_000_000);
  // bench/httpVsDuckdb.ts's, else the whole bench's (the same comparisons, same shape).
  const http = read<HttpResults>('results-http-2000000.json') ?? read<HttpResults>('results-2000000.json');
  const out: string[] = [];
  const sources = new Map<string, string>();
  const cite = (r: { name: string; data: { measuredAt: string; machine?: Machine; scanCores?: number } }) => {
    const cores = r.data.scanCores ? `, a large state's scans on ${r.data.scanCores === 1 ? 'one core' : `${r.data.scanCores} cores`}` : '';
    sources.set(r.name, `${day(r.data.measuredAt)}, ${machineNote(r.data.machine)}${cores}`);
    return `\`${r.name}\``;
  };

  out.push("| what | issue 16's target | measured | from | met |", '|---|---|---|---|---|');
  if (ten) {
    const t = ten.data;
    const duck = http?.data.storage.duckdbBytesPerRecord;
    out.push(
      `| dataset file at 10M, bytes a record | ≤ 400 and ≤ DuckDB's file${duck ? ` (${duck.toFixed(0)} at 2M)` : ''} | ${t.size.perRecord.toFixed(0)} (blocks ${t.size.blocks.toFixed(0)}, vectors ${t.size.vectors.toFixed(0)}, rest ${t.size.rest.toFixed(0)}), format ${t.formatVersion} | ${cite(ten)}${http ? `, ${cite(http)}` : ''} | ${yes(t.size.perRecord <= 400 && duck !== undefined && t.size.perRecord <= duck)} |`,
    );
  }
  if (sample)
    out.push(
      `| bundled 100k sample | < 40 MB | ${(sample.data.size.bytes / 1e6).toFixed(1)} MB | ${cite(sample)} | ${yes(sample.data.size.bytes < 40e6)} |`,
    );
  if (ten) {
    const t = ten.data;
    out.push(
      `| count, 1–5 filters, 10M, p95 (median) | < 5 ms | ${range(counts(t).map((w) => w.engine.p95))} (${range(counts(t).map((w) => w.engine.median))}) ms | ${cite(ten)} | ${yes(maxP95(counts(t)) < 5)} |`,
      `| first page of a new filtered audience, 10M, p95: preview 50 / search 100 | < 15 ms | ${firstPages(t)
        .map((w) => ms(w.engine.p95))
        .join(' / ')} ms | ${cite(ten)} | ${yes(maxP95(firstPages(t)) < 15)} |`,
      `| first use of a field, 10M, p95 (median): engine / HTTP | < 50 ms | ${ms(t.coldFields.engine.p95)} (${ms(t.coldFields.engine.median)}) / ${ms(t.coldFields.http.p95)} (${ms(t.coldFields.http.median)}) ms${slowest(t)}${firstRequest(t)} | ${cite(ten)} | ${yes(t.coldFields.engine.p95 < 50 && t.coldFields.http.p95 < 50)} |`,
      `| search of 100 full records at any skip, 10M, p95 | < 15 ms | ${range(searches(t).map((w) => w.engine.p95))} ms | ${cite(ten)} | ${yes(maxP95(searches(t)) < 15)} |`,
    );
    if (t.export)
      out.push(
        `| export of California to CSV, 10M | ≥ 70,000 records/s, memory flat | ${Math.round(t.export.recordsPerSecond).toLocaleString('en-US')} records/s, ${t.export.records.toLocaleString('en-US')} records, peak RSS ${Math.round(t.export.maxRssMb)} MB | ${cite(ten)} | ${yes(t.export.recordsPerSecond >= 70_000)} |`,
      );
  }
  if (http) {
    const ratios = http.data.httpCounts.map((r) => r.medianRatio);
    out.push(
      `| counts through HTTP against DuckDB in-process, 2M, median ratio | ≤ 0.5 for every count | ${ratios.map((r) => r.toFixed(2)).join(', ')} (1 to 5 filters; HTTP ${range(http.data.httpCounts.map((r) => r.http.median))} ms, DuckDB ${range(http.data.httpCounts.map((r) => r.duckdb.median))} ms) | ${cite(http)} | ${yes(Math.max(...ratios) <= 0.5)} |`,
    );
  }
  const thirty = byScale.find((r) => r.data.size.records === 30_000_000);
  out.push(
    `| 30M | generated and measured once | ${thirty ? 'see the sizes below' : 'not yet'} | ${thirty ? cite(thirty) : ''} | ${yes(thirty !== undefined)} |`,
  );

  out.push(
    '',
    '| records | file, bytes a record | count 1–5 filters, p95 | first filtered page, p95 (preview / search) | search 100, p95 | first use of a field, p95 engine / HTTP | peak RSS of the engine | export CA | generation |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of byScale) {
    const t = r.data;
    const exported = t.export
      ? `${Math.round(t.export.recordsPerSecond).toLocaleString('en-US')} records/s, ${Math.round(t.export.maxRssMb)} MB`
      : 'not measured';
    const generated = t.generation
      ? `${(t.generation.seconds / 60).toFixed(0)} min (${Math.round(t.size.records / t.generation.seconds).toLocaleString('en-US')} records/s)${t.generation.maxRssMb ? `, ${Math.round(t.generation.maxRssMb)} MB` : ''}`
      : 'not timed';
    out.push(
      `| ${t.size.records.toLocaleString('en-US')} (${cite(r)}) | ${(t.size.bytes / 1e9).toFixed(2)} GB, ${t.size.perRecord.toFixed(0)} | ${range(counts(t).map((w) => w.engine.p95))} ms | ${firstPages(
        t,
      )
        .map((w) => ms(w.engine.p95))
        .join(
          ' / ',
        )} ms | ${range(searches(t).map((w) => w.engine.p95))} ms | ${ms(t.coldFields.engine.p95)} / ${ms(t.coldFields.http.p95)} ms | ${t.engineMaxRssMb ? `${Math.round(t.engineMaxRssMb)} MB` : 'not recorded'} | ${exported} | ${generated} |`,
    );
  }
  out.push('', 'Where each figure comes from:', '');
  for (const [name, note] of sources) out.push(`- \`bench/${name}\`: ${note}.`);
  return out.join('\n');
}

/** The README with its tables replaced by `tables`. */
export function withTables(readme: string, tables: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} block.`);
  return `${readme.slice(0, start + START.length)}\n${tables}\n${readme.slice(end)}`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const readme = readFileSync(README_PATH, 'utf8');
  const updated = withTables(readme, renderTables());
  if (process.argv.includes('--check')) {
    if (updated !== readme) {
      console.error("README.md's bench tables differ from bench/*.json: run `npx tsx bench/readmeTables.ts`.");
      process.exit(1);
    }
    console.log("README.md's bench tables are the JSON's.");
  } else {
    writeFileSync(README_PATH, updated);
    console.log('README.md: bench tables written.');
  }
}
