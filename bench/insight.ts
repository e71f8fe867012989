// `npm run bench:insight -- [--db FILE | --rows N [--seed S]] [--state XX] [--repeat 20] [--reference] [--clickhouse]`:
// the insight operations through HTTP as a local tool asks them (docs/insight.md): the profile of an
// audience by 3 fields and by every coded field (the first ask apart, then p95 over audiences of different
// filters), a lookalike's first answer (learning and scoring) and later pages of it, and the overlap of
// saved audiences (the first ask, then other combinations of them). `--reference` adds DuckDB's GROUP BY
// of the same counts in-process (DuckDB, the benches' reference engine, loaded with the same records, in
// memory). `--clickhouse` then asks the same of a ClickHouse engine (a local clickhouse-server loaded with
// the same file by the project's loader, bench/clickhouse/insightServer.ts) and prints both engines side
// by side with the ratio. The dataset: --db, or the benches' generated bench/data/bench-<rows>-<seed>.sqlite
// (benchDataset.ts; --rows default 1,000,000); the state: --state, or the file's largest.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { overrideSettings } from '../src/core/config';
import { createCore, type Core } from '../src/core/createCore';
import { Dataset } from '../src/core/dataset/read/dataset';
import { normalizeAudienceRequest } from '../src/shared/audienceRequest';
import { fieldIndex } from '../src/shared/fields';
import { PROFILE_DEFAULT_FIELDS } from '../src/shared/profile';
import { ApiServer } from '../src/server/apiServer';
import { benchDataset } from './benchDataset';
import { loadedClickHouse } from './clickhouse/insightServer';
import { DuckReference } from './duckdbReference';
import { summarize, timeIt, type Summary } from './stats';
import type { Filters } from './workload';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    rows: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    state: { type: 'string' },
    repeat: { type: 'string', default: '20' },
    reference: { type: 'boolean', default: false },
    clickhouse: { type: 'boolean', default: false },
  },
});
const datasetPath = values.db ? resolve(values.db) : benchDataset(Number(values.rows), Number(values.seed)).path;
const repeat = Number(values.repeat);
const THREE = ['EHI', 'HOMEOWNERC', 'AGE'];
/** Audiences of different filters, so no profile is an answer kept from the one before. */
const AUDIENCES: Filters[] = [
  [['GENDER', ['F']]],
  [['GENDER', ['M']]],
  [['MARRIEDCD', ['M']]],
  [['HOMEOWNERC', ['H']]],
  [['AGE', ['25-44']]],
  [['AGE', ['45+']]],
  [['EHI', ['A', 'B', 'C']]],
  [['CHILD', ['Y']]],
];
/** Saved audiences whose overlaps are asked: the first three first, then every other combination of 2 to 4. */
const OVERLAP_SETS: Filters[] = [[['GENDER', ['F']]], [['HOMEOWNERC', ['H']]], [['AGE', ['45+']]], [['EHI', ['A', 'B', 'C']]]];

const loadAverage = () =>
  `${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')} (${availableParallelism()} cores)`;
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

/** A core behind the real HTTP server, and a keep-alive client of it with a key. */
async function serve(core: Core): Promise<{ post: (path: string, body: unknown) => Promise<any>; close: () => Promise<void> }> {
  const server = new ApiServer(core);
  const url = new URL(await server.listen(0));
  const { key } = core.keys.create('bench insight');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (path: string, body: unknown): Promise<any> => {
    const text = JSON.stringify(body);
    return new Promise((done, fail) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-api-key': key },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', fail);
          res.on('end', () => {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (res.statusCode !== 200) fail(new Error(`${path}: ${res.statusCode} ${JSON.stringify(answer).slice(0, 200)}`));
            else done(answer);
          });
        },
      );
      req.on('error', fail);
      req.end(text);
    });
  };
  return { post, close: async () => (agent.destroy(), await server.close()) };
}

/** The first ask of a workload (on first use) and the asks after it. */
interface Timing {
  first: number;
  later: Summary;
}
type Figures = Record<'three' | 'all' | 'like' | 'overlap', Timing> & { likeTop: number; overlapAnswer: string };

/** Every combination of 2 to n of the sets but the first three together, which is asked first. */
function laterCombinations(n: number): number[][] {
  const out: number[][] = [];
  for (let mask = 1; mask < 1 << n; mask++) {
    const set = [...Array(n).keys()].filter((i) => mask & (1 << i));
    if (set.length >= 2 && mask !== 0b111) out.push(set);
  }
  return out;
}

/** The insight operations through HTTP on one core, as docs/insight.md's bench describes them. */
async function measure(core: Core, state: string, people: number, label: string): Promise<Figures> {
  console.log(`${label}: load average before it: ${loadAverage()}`);
  const { post, close } = await serve(core);
  const profiles = async (fields: readonly string[]): Promise<Timing> => {
    const first = await timeIt(() => post('/api/audiences/profile', { state, filters: AUDIENCES[0], fields }));
    const times: number[] = [];
    for (let i = 0; i < repeat; i++)
      times.push(
        await timeIt(() => post('/api/audiences/profile', { state, filters: AUDIENCES[(i % (AUDIENCES.length - 1)) + 1], fields })),
      );
    return { first, later: summarize(times) };
  };
  const three = await profiles(THREE);
  const all = await profiles(PROFILE_DEFAULT_FIELDS);

  // A seed of a third of the state's high-income homeowners of 45 and over.
  const seed = core.savedAudiences.save({
    name: 'bench seed',
    state,
    filters: [
      ['EHI', ['G', 'H', 'I', 'J', 'K', 'L']],
      ['HOMEOWNERC', ['H']],
      ['AGE', ['45+']],
    ],
    sample: { every: 3 },
  });
  const like = { seed: `saved:${seed.id}`, top: Math.max(1, Math.round(people * 0.05)) };
  const likeFirst = await timeIt(() => post('/api/audiences/preview', { state, like, limit: 100 }));
  const likeLater: number[] = [];
  for (let i = 0; i < repeat; i++)
    likeLater.push(await timeIt(() => post('/api/audiences/preview', { state, like, limit: 100, skip: 100 * (i + 1) })));

  const sets = OVERLAP_SETS.map((filters, i) => `saved:${core.savedAudiences.save({ name: `bench overlap ${i}`, state, filters }).id}`);
  let answer: any;
  const overlapFirst = await timeIt(async () => (answer = await post('/api/audiences/overlap', { state, sets: sets.slice(0, 3) })));
  const overlapLater: number[] = [];
  for (const combination of laterCombinations(sets.length))
    overlapLater.push(await timeIt(() => post('/api/audiences/overlap', { state, sets: combination.map((i) => sets[i]) })));
  await close();
  return {
    three,
    all,
    like: { first: likeFirst, later: summarize(likeLater) },
    overlap: { first: overlapFirst, later: summarize(overlapLater) },
    likeTop: like.top,
    // Both engines must answer the same counts; the bench prints whether they did (no record data).
    overlapAnswer: JSON.stringify({ pairs: answer.pairs, regions: answer.regions }),
  };
}

function printFigures(rows: Array<[string, Timing]>, label: string): void {
  console.log(`| ${label}, through HTTP | first | median | p95 |\n|---|---|---|---|`);
  for (const [name, t] of rows) console.log(`| ${name} | ${fmt(t.first)} | ${fmt(t.later.median)} | ${fmt(t.later.p95)} |`);
}
const rowsOf = (f: Figures): Array<[string, Timing]> => [
  ['profile, 3 fields', f.three],
  [`profile, ${PROFILE_DEFAULT_FIELDS.length} coded fields`, f.all],
  [`like top ${f.likeTop}: first page (learning and scoring), then later pages`, f.like],
  [`overlap of 3 saved audiences, then ${laterCombinations(OVERLAP_SETS.length).length} other combinations of 2-4`, f.overlap],
];

const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-insight-'));
// The background verify would read the whole file on the other core while answers are timed.
const restore = overrideSettings({ backgroundVerify: false });
const core = createCore({ homeDir: home, datasetPath });
const summary = await core.audiences.summary();
const state = values.state ?? [...summary.states].sort((a, b) => b.count - a.count)[0]!.state;
const people = summary.states.find((s) => s.state === state)?.count ?? 0;

console.log(`${summary.records} records (${datasetPath}); ${state}: ${people} people; ${repeat} asks after the first; ms`);
console.log(`load average at the start: ${loadAverage()}`);
const embedded = await measure(core, state, people, 'embedded engine');
printFigures(rowsOf(embedded), 'embedded engine');

// The same counts in the server's process without HTTP: each audience's counts of every coded field
// in one groupCountsMany (the profile's engine work, its bases kept), and the state's own (the base's).
{
  const engine = core.engine;
  const indexes = PROFILE_DEFAULT_FIELDS.map((name) => fieldIndex(name));
  const audience = (filters: Filters) => normalizeAudienceRequest({ state, filters });
  const many: number[] = [];
  for (let i = 0; i < repeat; i++)
    many.push(await timeIt(() => engine.groupCountsMany(audience(AUDIENCES[(i % (AUDIENCES.length - 1)) + 1]!), indexes)));
  const whole: number[] = [];
  for (let i = 0; i < Math.min(repeat, 5); i++) whole.push(await timeIt(() => engine.groupCountsMany(audience([]), indexes)));
  const m = summarize(many);
  const w = summarize(whole);
  console.log('| in the engine (no HTTP), counts of every coded field at once | median | p95 |\n|---|---|---|');
  console.log(`| the audiences above | ${fmt(m.median)} | ${fmt(m.p95)} |`);
  console.log(`| everyone in ${state} (a base, before it is kept) | ${fmt(w.median)} | ${fmt(w.p95)} |`);
}

if (values.reference) {
  const dataset = Dataset.open(datasetPath);
  console.log(`loading DuckDB (in memory) with the same ${dataset.records} records…`);
  const { duck } = await DuckReference.load(dataset, join(home, 'reference.csv'));
  dataset.close();
  const duckProfile = async (fields: readonly string[]): Promise<Summary> => {
    const times: number[] = [];
    for (let i = 0; i < repeat; i++)
      times.push(
        await timeIt(async () => {
          // The audience's counts and the state's, as the profile needs them.
          for (const field of fields) {
            await duck.groupCounts(state, AUDIENCES[(i % (AUDIENCES.length - 1)) + 1]!, field);
            await duck.groupCounts(state, [], field);
          }
        }),
      );
    return summarize(times);
  };
  const d3 = await duckProfile(THREE);
  const dAll = await duckProfile(PROFILE_DEFAULT_FIELDS);
  console.log('| DuckDB in-process (GROUP BY of the audience and of the state, a field at a time) | median | p95 |\n|---|---|---|');
  console.log(`| 3 fields | ${fmt(d3.median)} | ${fmt(d3.p95)} |`);
  console.log(`| ${PROFILE_DEFAULT_FIELDS.length} coded fields | ${fmt(dAll.median)} | ${fmt(dAll.p95)} |`);
}

if (values.clickhouse) {
  console.log(`loading ClickHouse (a local clickhouse-server, the project's loader) with the same file; load average ${loadAverage()}…`);
  const clickhouse = await loadedClickHouse(datasetPath);
  console.log(`  loaded in ${clickhouse.loadSeconds.toFixed(1)} s (${clickhouse.recordsPerSecond} records/s)`);
  const chHome = mkdtempSync(join(tmpdir(), 'audience-desk-bench-insight-ch-'));
  const chCore = createCore({ homeDir: chHome, engine: clickhouse.engine });
  try {
    const ch = await measure(chCore, state, people, 'ClickHouse engine');
    printFigures(rowsOf(ch), 'ClickHouse engine');
    console.log(
      '| through HTTP (ms) | embedded: first / median / p95 | ClickHouse: first / median / p95 | ratio ClickHouse / embedded: first / median / p95 |',
    );
    console.log('|---|---|---|---|');
    const e = rowsOf(embedded);
    const c = rowsOf(ch);
    const three = (t: Timing) => `${fmt(t.first)} / ${fmt(t.later.median)} / ${fmt(t.later.p95)}`;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}x`;
    for (let i = 0; i < e.length; i++) {
      const [name, et] = e[i]!;
      const ct = c[i]![1];
      console.log(
        `| ${name} | ${three(et)} | ${three(ct)} | ${ratio(ct.first, et.first)} / ${ratio(ct.later.median, et.later.median)} / ${ratio(ct.later.p95, et.later.p95)} |`,
      );
    }
    console.log(`overlap counts the same on both engines: ${ch.overlapAnswer === embedded.overlapAnswer ? 'yes' : 'NO'}`);
  } finally {
    await chCore.shutdown();
    await clickhouse.stop();
    rmSync(chHome, { recursive: true, force: true });
  }
}

console.log(`load average at the end: ${loadAverage()}`);
await core.shutdown();
restore();
rmSync(home, { recursive: true, force: true });
