// `npx tsx bench/readmeTables.ts [--check]`: the tables of issue 16's targets and of sizes in
// docs/performance.md (they lived in the README until issue 33, hence the name), made from the results
// JSON under bench/ (bench/engineOnly.ts, bench/httpVsDuckdb.ts), each figure with the file, the day and
// the machine it comes from, and what `cli verify` said of the file measured. Writes them between
// docs/performance.md's `<!-- bench:tables -->` markers; --check exits 1 when the page's tables are not
// the JSON's (test/bench/readmeTables.test.ts checks the same), so a table cannot drift from its measurement.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliVerify } from './cliVerify';
import type { Machine } from './machine';
import type { Summary } from './stats';

const BENCH_DIR = import.meta.dirname;
/** The page that holds the tables. */
export const TABLES_PATH = join(BENCH_DIR, '..', 'docs', 'performance.md');
const TABLES_PAGE = 'docs/performance.md';
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
  /** What `cli verify` said of the file, before anything was measured (bench/cliVerify.ts; since 28 November). */
  verify?: CliVerify;
}

interface HttpResults {
  rows: number;
  measuredAt: string;
  machine?: Machine;
  httpCounts: Array<{ what: string; http: Summary; duckdb: Summary; medianRatio: number }>;
  storage: { bytesPerRecord: number; duckdbBytesPerRecord: number };
  verify?: CliVerify;
}

/** `npm run bench` (bench/run.ts): the engine and DuckDB on the same records, and the whole-bench figures. */
interface WholeBenchResults {
  rows: number;
  measuredAt: string;
  machine?: Machine;
  repeat: number;
  /** Where DuckDB held the records ("in memory", or a persistent file at 10M). */
  duckdb: string;
  duckdbLoadSeconds: number;
  datasetOpenMs: number;
  workloads: Array<{ what: string; engine: Summary; duckdb: Summary }>;
  export?: {
    records: number;
    recordsPerSecond: number;
    maxRssMb: number;
    duckdbRecordsPerSecond: number;
    sqlite3RecordsPerSecond?: number | null;
  } | null;
  http?: { requestsPerSecond: number; p99Ms: number; non2xx: number; serverCpuMsPerRequest?: number } | null;
  storage?: { formatVersion: string; bytesPerRecord: number; duckdbBytesPerRecord: number } | null;
  listControls?: {
    rows: Array<{ what: string; engine: Summary; ratio: number }>;
    firstUseMs: { households: number; exclusion: number };
  };
  verify?: CliVerify;
}

const ENGINE_NAMES: Record<string, string> = {
  embedded: 'embedded',
  'clickhouse single': 'ClickHouse single node',
  'clickhouse 2 shards': 'ClickHouse two shards',
};

/** `npm run bench -- --engine clickhouse` (bench/clickhouse/run.ts): each engine's times on the same file. */
interface ClickHouseResults {
  rows: number;
  measuredAt: string;
  machine?: Machine;
  repeat: number;
  load: Record<string, { records: number; seconds: number; recordsPerSecond: number; shards: number }>;
  /** Workload, then engine ("embedded", "clickhouse single", "clickhouse 2 shards"): ms, or records/s for an export. */
  table: Record<string, Record<string, Summary | number>>;
}

function read<T>(name: string): { name: string; data: T } | null {
  const path = join(BENCH_DIR, name);
  return existsSync(path) ? { name, data: JSON.parse(readFileSync(path, 'utf8')) as T } : null;
}

const ms = (x: number) => (x < 10 ? x.toFixed(1) : x < 1000 ? x.toFixed(0) : Math.round(x).toLocaleString('en-US'));
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

/** What `cli verify` said of a measured file, for a table cell; older results JSON did not record it. */
export function verifyCell(verify: CliVerify | undefined): string {
  if (!verify) return 'not recorded';
  const said = verify.line.replace(/\s+/g, ' ').replaceAll('|', '\\|');
  return `${verify.ok ? 'ok' : '**damaged**'} (${verify.seconds.toFixed(0)} s): ${said}`;
}

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
  const cite = (r: { name: string; data: { measuredAt: string; machine?: Machine; scanCores?: number; verify?: CliVerify } }) => {
    const cores = r.data.scanCores ? `, a large state's scans on ${r.data.scanCores === 1 ? 'one core' : `${r.data.scanCores} cores`}` : '';
    const verified = `; \`cli verify\` on the file: ${verifyCell(r.data.verify)}`;
    sources.set(r.name, `${day(r.data.measuredAt)}, ${machineNote(r.data.machine)}${cores}${verified}`);
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
    `| 30M | generated, verified by \`cli verify\` when recorded, and measured once | ${thirty ? 'see the sizes below' : 'not yet'} | ${thirty ? cite(thirty) : ''} | ${yes(thirty !== undefined && thirty.data.verify?.ok !== false)} |`,
  );

  out.push(
    '',
    '| records | file, bytes a record | count 1–5 filters, p95 | first filtered page, p95 (preview / search) | search 100, p95 | first use of a field, p95 engine / HTTP | peak RSS of the engine | export CA | generation | `cli verify` on the file |',
    '|---|---|---|---|---|---|---|---|---|---|',
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
        )} ms | ${range(searches(t).map((w) => w.engine.p95))} ms | ${ms(t.coldFields.engine.p95)} / ${ms(t.coldFields.http.p95)} ms | ${t.engineMaxRssMb ? `${Math.round(t.engineMaxRssMb)} MB` : 'not recorded'} | ${exported} | ${generated} | ${verifyCell(t.verify)} |`,
    );
  }
  const whole = [1_000_000, 2_000_000, 10_000_000]
    .map((n) => read<WholeBenchResults>(`results-${n}.json`))
    .filter((r): r is { name: string; data: WholeBenchResults } => r !== null);
  if (whole.length > 0) {
    const scale = (r: { data: WholeBenchResults }) => `${r.data.rows / 1_000_000}M`;
    const pair = (x: Summary | undefined) => (x ? `${ms(x.median)} / ${ms(x.p95)}` : '');
    out.push(
      '',
      `The engine (selection cache off) against DuckDB on the same records, \`npm run bench\`, ms median / p95 (${whole
        .map((r) => `${scale(r)}: ${cite(r)}, ${r.data.repeat} repeats, DuckDB ${r.data.duckdb}`)
        .join('; ')}):`,
      '',
      `| workload | ${whole.map((r) => `engine ${scale(r)} | DuckDB ${scale(r)}`).join(' | ')} |`,
      `|---|${whole.map(() => '---|---|').join('')}`,
    );
    for (const w of whole[0]!.data.workloads) {
      const cells = whole.map((r) => {
        const same = r.data.workloads.find((x) => x.what === w.what);
        return `${pair(same?.engine)} | ${pair(same?.duckdb)}`;
      });
      out.push(`| ${w.what} | ${cells.join(' | ')} |`);
    }
    const perScale = (f: (d: WholeBenchResults) => string) => `| ${whole.map((r) => f(r.data)).join(' | ')} |`;
    const rate = (x: number | null | undefined) => (x ? `${Math.round(x).toLocaleString('en-US')}/s` : 'not measured');
    out.push(
      '',
      `| figure | ${whole.map(scale).join(' | ')} |`,
      `|---|${whole.map(() => '---|').join('')}`,
      `| export of CA to CSV: records, engine (peak RSS) / DuckDB COPY / \`sqlite3 -csv\` ${perScale((d) =>
        d.export
          ? `${d.export.records.toLocaleString('en-US')}: ${rate(d.export.recordsPerSecond)} (${Math.round(d.export.maxRssMb)} MB) / ${rate(d.export.duckdbRecordsPerSecond)} / ${rate(d.export.sqlite3RecordsPerSecond)}`
          : 'not measured',
      )}`,
      `| HTTP, 16 connections, mixed preview / search / count: requests/s, p99, server CPU-ms a request ${perScale((d) =>
        d.http
          ? `${Math.round(d.http.requestsPerSecond).toLocaleString('en-US')}, ${d.http.p99Ms} ms, ${d.http.serverCpuMsPerRequest === undefined ? 'not recorded' : d.http.serverCpuMsPerRequest.toFixed(2)}${d.http.non2xx > 0 ? `, ${d.http.non2xx} errors` : ''}`
          : 'not measured',
      )}`,
      `| file, bytes a record: ours / DuckDB's ${perScale((d) =>
        d.storage
          ? `${d.storage.bytesPerRecord.toFixed(0)} (format ${d.storage.formatVersion}) / ${d.storage.duckdbBytesPerRecord.toFixed(0)}`
          : 'not recorded',
      )}`,
      `| dataset open ${perScale((d) => `${ms(d.datasetOpenMs)} ms`)}`,
      `| DuckDB's load of the records ${perScale((d) => `${Math.round(d.duckdbLoadSeconds).toLocaleString('en-US')} s`)}`,
      `| \`cli verify\` on the file ${perScale((d) => verifyCell(d.verify))}`,
    );
    const controls = whole.find((r) => r.data.listControls);
    if (controls?.data.listControls) {
      const lc = controls.data.listControls;
      out.push(
        '',
        `List controls in California, ${scale(controls)} records, cache off (${cite(controls)}); first use in a state, timed apart: household numbers ${ms(lc.firstUseMs.households)} ms, an exclusion's marks ${ms(lc.firstUseMs.exclusion)} ms:`,
        '',
        '| audience | median / p95, ms | p95 against the plain count |',
        '|---|---|---|',
        ...lc.rows.map((r) => `| ${r.what} | ${pair(r.engine)} | ${r.ratio.toFixed(2)}× |`),
      );
    }
  }

  const clickhouse = ['results-clickhouse-1000000.json', 'results-clickhouse-10000000-single.json']
    .map((name) => read<ClickHouseResults>(name))
    .filter((r): r is { name: string; data: ClickHouseResults } => r !== null);
  if (clickhouse.length > 0) {
    const columns = clickhouse.flatMap((r) =>
      Object.keys(Object.values(r.data.table)[0] ?? {}).map((engine) => ({
        r,
        engine,
        head: `${ENGINE_NAMES[engine] ?? engine}, ${r.data.rows / 1_000_000}M`,
      })),
    );
    const cell = (x: Summary | number | undefined) =>
      x === undefined
        ? ''
        : typeof x === 'number'
          ? `${Math.round(x).toLocaleString('en-US')} records/s`
          : `${ms(x.median)} / ${ms(x.p95)}`;
    out.push(
      '',
      `The embedded engine and Debian's ClickHouse 18.16 on the same file, caches off, ms median / p95 (${clickhouse
        .map((r) => `${cite(r)}, ${r.data.repeat} repeats`)
        .join('; ')}):`,
      '',
      `| workload | ${columns.map((c) => c.head).join(' | ')} |`,
      `|---|${columns.map(() => '---|').join('')}`,
    );
    for (const what of Object.keys(clickhouse[0]!.data.table))
      out.push(`| ${what.replace(' (records/s)', '')} | ${columns.map((c) => cell(c.r.data.table[what]?.[c.engine])).join(' | ')} |`);
    const loadKey: Record<string, string> = { 'clickhouse single': 'single', 'clickhouse 2 shards': 'twoShards' };
    out.push(
      `| load | ${columns
        .map((c) => {
          const l = c.r.data.load[loadKey[c.engine] ?? ''];
          return l ? `${l.recordsPerSecond.toLocaleString('en-US')} records/s (${Math.round(l.seconds / 60)} min)` : '';
        })
        .join(' | ')} |`,
    );
  }

  out.push('', 'Where each figure comes from:', '');
  for (const [name, note] of sources) out.push(`- \`bench/${name}\`: ${note}.`);
  return out.join('\n');
}

/** The page (docs/performance.md) with its tables replaced by `tables`. */
export function withTables(page: string, tables: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${TABLES_PAGE} has no ${START} … ${END} block.`);
  return `${page.slice(0, start + START.length)}\n${tables}\n${page.slice(end)}`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const page = readFileSync(TABLES_PATH, 'utf8');
  const updated = withTables(page, renderTables());
  if (process.argv.includes('--check')) {
    if (updated !== page) {
      console.error(`${TABLES_PAGE}'s bench tables differ from bench/*.json: run \`npx tsx bench/readmeTables.ts\`.`);
      process.exit(1);
    }
    console.log(`${TABLES_PAGE}'s bench tables are the JSON's.`);
  } else {
    writeFileSync(TABLES_PATH, updated);
    console.log(`${TABLES_PAGE}: bench tables written.`);
  }
}
