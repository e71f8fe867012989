// Issue 37's import target, side by side in one run: `cli import` (a child process, as a user runs it,
// default settings) against DuckDB's own CSV load of the same files into a table (in this process,
// @duckdb/node-api, a fresh database file each round, CHECKPOINT included), alternating, several rounds.
// The import runs from the CLI's bundle (`npm run build:cli`, built first): plain JavaScript, as the
// desktop app's own bundle runs the same import; the same import from the sources through tsx (`npm run
// cli`, which compiles TypeScript in the process and in each worker) is timed beside it as its own side.
// The input is vendor CSV as the app itself exports it: a few whole states of a generated bench file.
//   npm run bench:import -- [--dataset bench/data/bench-1000000-1.sqlite] [--states FL,NY,PA,IL] [--rounds 3] [--inputs DIR]
//     [--baseline DIR] [--no-source] [--quoted]
// --quoted: the same files with every field quoted, as many vendors write CSV (papaparse reads quoted
// text far slower than plain; docs/import.md, "Quoted fields").
// --baseline DIR: a copy of the project (its src/, node_modules linked) whose `cli import` (from its
// sources, through tsx) also runs in every round: a before-and-after of a change, measured in the same
// minutes. --no-source leaves the import from the sources out.
// Prints one JSON line a measurement and a summary: rows/s of each side (the import's by the child
// process's wall clock, and apart by its own clock, without the CLI's start), their ratio, the import's peak
// RSS (the kernel's high-water mark of the import's node process, from /usr/bin/time) on all the files
// and on half of them (memory flat: the two should be close), the pages each import touched fresh (minor
// faults), and the load average beside each figure; before each round, the machine's speed (speedProbe.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchDataset } from './benchDataset';
import { exportInChild } from './exportInChild';
import { speedProbeMs } from './speedProbe';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
}

// Without --dataset, the bench's own 1M file, generated on a machine that has none yet (as the other benches do).
const datasetAt = process.argv.indexOf('--dataset');
const dataset = datasetAt > 0 ? resolve(process.argv[datasetAt + 1]!) : benchDataset(1_000_000, 1).path;
if (!existsSync(dataset)) throw new Error(`No dataset file at ${dataset} (--dataset).`);
const states = option('states', 'FL,NY,PA,IL').split(',');
const rounds = Number(option('rounds', '3'));
const inputs = resolve(option('inputs', join(tmpdir(), 'audience-desk-bench-import-vs-duckdb')));
const root = resolve(import.meta.dirname, '..');
execFileSync('npm', ['run', '--silent', 'build:cli'], { cwd: root, stdio: 'ignore' });
/** The node arguments before `import …` of each way of running the CLI. */
const bundled = [join(root, 'out', 'cli', 'index.js')];
const fromSource = (project: string): string[] => ['--import', 'tsx', resolve(project, 'src', 'cli', 'index.ts')];
const baselineAt = process.argv.indexOf('--baseline');
const baselineCli = baselineAt > 0 ? fromSource(process.argv[baselineAt + 1]!) : undefined;
const sourceCli = process.argv.includes('--no-source') ? undefined : fromSource(root);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function exportStates(): string[] {
  mkdirSync(inputs, { recursive: true });
  return states.map((state) => {
    const file = join(inputs, `${state}.csv`);
    if (!existsSync(file)) {
      const partial = `${file}.partial`;
      exportInChild(dataset, state, partial);
      execFileSync('mv', [partial, file]);
    }
    return file;
  });
}

interface ImportRun {
  rows: number;
  seconds: number;
  peakRssMB: number;
  /** CPU-seconds of the import process, every thread (user + system): steadier than wall time on a shared machine. */
  cpuSeconds: number;
  /**
   * Pages of memory the import touched for the first time (minor page faults, every thread): each
   * costs a trap into the kernel, ~11 µs on the slower VM of docs/performance.md.
   */
  freshPages: number;
  /**
   * The import's own clock (its summary's `seconds`): without the CLI process's start (Node loading
   * the CLI), which the desktop app, already running, does not pay.
   */
  importSeconds: number;
}

/** `node out/cli/index.js import FILES --out HOME/dataset.sqlite` (or `cli` another way of running the CLI). */
function cliImport(files: string[], cli = bundled): ImportRun {
  const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-import-home-'));
  try {
    const out = join(home, 'dataset.sqlite');
    const timeFile = join(home, 'time.txt');
    const started = performance.now();
    const stdout = execFileSync(
      '/usr/bin/time',
      ['-f', '%M %U %S %R', '-o', timeFile, process.execPath, ...cli, 'import', ...files, '--out', out],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as { read: number; rejected: number; seconds: number };
    if (summary.rejected !== 0) throw new Error(`the import rejected ${summary.rejected} rows of the app's own export`);
    const [maxRssKb, user, system, minorFaults] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    return {
      rows: summary.read,
      seconds,
      peakRssMB: Math.round((maxRssKb! * 1024) / 1e6),
      cpuSeconds: +(user! + system!).toFixed(2),
      freshPages: minorFaults!,
      importSeconds: summary.seconds,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const sqlString = (v: string): string => `'${v.replace(/'/g, "''")}'`;

/**
 * DuckDB's own CSV load of the same files into a table of a fresh database file. CPU-seconds: this
 * process's, every thread (DuckDB's included), while it runs.
 */
async function duckdbLoad(files: string[]): Promise<{ rows: number; seconds: number; cpuSeconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'audience-desk-bench-duckdb-'));
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const instance = await DuckDBInstance.create(join(dir, 'load.duckdb'));
    const connection = await instance.connect();
    await connection.run(
      `CREATE TABLE t AS SELECT * FROM read_csv([${files.map(sqlString).join(', ')}], header = true, all_varchar = false)`,
    );
    await connection.run('CHECKPOINT');
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = +((used.user + used.system) / 1e6).toFixed(2);
    const reader = await connection.runAndReadAll('SELECT count(*) FROM t');
    const rows = Number(reader.getRows()[0]![0]);
    connection.closeSync();
    instance.closeSync();
    return { rows, seconds, cpuSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `file` with every field quoted, beside it (the export holds no quote, so each field is wrapped as it is; its CRLF line ends stay). */
function quotedCopy(file: string): string {
  const out = file.replace(/\.csv$/, '.quoted.csv');
  if (!existsSync(out)) {
    const lines = readFileSync(file, 'utf8').split('\r\n');
    if (lines.at(-1) === '') lines.pop();
    if (lines.some((line) => line.includes('"'))) throw new Error(`${file} holds a quote: not the app's plain export.`);
    writeFileSync(`${out}.partial`, lines.map((line) => `"${line.replaceAll(',', '","')}"\r\n`).join(''));
    renameSync(`${out}.partial`, out);
  }
  return out;
}

const quoted = process.argv.includes('--quoted');
const files = quoted ? exportStates().map(quotedCopy) : exportStates();
const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
console.log(JSON.stringify({ dataset, states, quoted, files: files.length, inputMB: Math.round(bytes / 1e6), load: load() }));
const importRates: number[] = [];
/** The import's rows a second by its own clock (ImportRun.importSeconds): what the desktop app's import gets. */
const ownClockRates: number[] = [];
const baselineRates: number[] = [];
const sourceRates: number[] = [];
const cpuSeconds: Record<string, number[]> = { import: [], source: [], baseline: [], duckdb: [] };
const duckRates: number[] = [];
const peaks: number[] = [];
/** The machine's speed before each round (bench/speedProbe.ts): the rounds of a run can meet different machines. */
const probes: number[] = [];
for (let round = 1; round <= rounds; round++) {
  probes.push(speedProbeMs());
  console.log(JSON.stringify({ round, speedProbeMs: probes.at(-1) }));
  // Alternate which side goes first, so neither always meets a warmer page cache or a quieter minute.
  const sides = ['import', ...(sourceCli ? ['source'] : []), ...(baselineCli ? ['baseline'] : []), 'duckdb'];
  const order = round % 2 === 1 ? sides : sides.reverse();
  for (const side of order) {
    const loadBefore = load();
    const cli = side === 'baseline' ? baselineCli : side === 'source' ? sourceCli : bundled;
    const run = side === 'duckdb' ? await duckdbLoad(files) : cliImport(files, cli);
    const rates = { import: importRates, source: sourceRates, baseline: baselineRates, duckdb: duckRates }[side]!;
    rates.push(run.rows / run.seconds);
    cpuSeconds[side]!.push(run.cpuSeconds);
    if (side === 'import') {
      peaks.push((run as ImportRun).peakRssMB);
      ownClockRates.push(run.rows / (run as ImportRun).importSeconds);
    }
    console.log(
      JSON.stringify({
        round,
        side,
        ...run,
        seconds: +run.seconds.toFixed(2),
        rowsPerSecond: Math.round(run.rows / run.seconds),
        load: loadBefore,
      }),
    );
  }
}
// Every other file: about half the rows (the states alternate large and small).
const half = files.filter((_, i) => i % 2 === 0);
const halfRun = cliImport(half);
console.log(
  JSON.stringify({ side: 'import of half the files', files: half.length, ...halfRun, seconds: +halfRun.seconds.toFixed(2), load: load() }),
);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  JSON.stringify({
    date: new Date().toISOString(),
    importRowsPerSecond: importRates.map(Math.round),
    importOwnClockRowsPerSecond: ownClockRates.map(Math.round),
    duckdbRowsPerSecond: duckRates.map(Math.round),
    ...(sourceCli ? { fromSourcesRowsPerSecond: sourceRates.map(Math.round) } : {}),
    ...(baselineCli ? { baselineRowsPerSecond: baselineRates.map(Math.round) } : {}),
    medianRatio: +(median(importRates) / median(duckRates)).toFixed(2),
    speedProbeMs: probes,
    // On a busy machine wall time follows the others' load; CPU-seconds (every thread) much less.
    cpuSeconds,
    importPeakRssMB: peaks,
    halfFilesPeakRssMB: halfRun.peakRssMB,
    load: load(),
  }),
);
