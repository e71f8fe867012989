// `npm run bench:insight -- [--db FILE | --rows N [--seed S]] [--state XX] [--repeat 20] [--reference]`: the insight
// operations through HTTP as a local tool asks them (docs/insight.md): the profile of an audience by 3
// fields and by every coded field (the first ask apart, then p95 over audiences of different filters),
// and a lookalike's first answer (learning and scoring) and a later page of it, beside DuckDB's GROUP BY
// of the same counts in-process (`--reference`: DuckDB, the benches' reference engine, loaded with the
// same records, in memory). The dataset: --db, or the benches' generated bench/data/bench-<rows>-<seed>.sqlite
// (benchDataset.ts; --rows default 1,000,000); the state: --state, or the file's largest.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { overrideSettings } from '../src/core/config';
import { createCore } from '../src/core/createCore';
import { Dataset } from '../src/core/dataset/read/dataset';
import { normalizeAudienceRequest } from '../src/shared/audienceRequest';
import { fieldIndex } from '../src/shared/fields';
import { PROFILE_DEFAULT_FIELDS } from '../src/shared/profile';
import { ApiServer } from '../src/server/apiServer';
import { benchDataset } from './benchDataset';
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

const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-insight-'));
// The background verify would read the whole file on the other core while answers are timed.
const restore = overrideSettings({ backgroundVerify: false });
const core = createCore({ homeDir: home, datasetPath });
const server = new ApiServer(core);
const url = new URL(await server.listen(0));
const { key } = core.keys.create('bench insight');
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const summary = await core.audiences.summary();
const state = values.state ?? [...summary.states].sort((a, b) => b.count - a.count)[0]!.state;
const people = summary.states.find((s) => s.state === state)?.count ?? 0;

function post(path: string, body: unknown): Promise<any> {
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
}

async function profiles(fields: readonly string[]): Promise<{ first: number; later: Summary }> {
  const first = await timeIt(() => post('/api/audiences/profile', { state, filters: AUDIENCES[0], fields }));
  const times: number[] = [];
  for (let i = 0; i < repeat; i++)
    times.push(await timeIt(() => post('/api/audiences/profile', { state, filters: AUDIENCES[(i % (AUDIENCES.length - 1)) + 1], fields })));
  return { first, later: summarize(times) };
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
console.log(`${summary.records} records (${datasetPath}); ${state}: ${people} people; ${repeat} asks after the first; ms`);
console.log(
  `load average at the start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')} (${availableParallelism()} cores)`,
);
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

console.log('| through HTTP | first | median | p95 |\n|---|---|---|---|');
console.log(`| profile, 3 fields | ${fmt(three.first)} | ${fmt(three.later.median)} | ${fmt(three.later.p95)} |`);
console.log(
  `| profile, ${PROFILE_DEFAULT_FIELDS.length} coded fields | ${fmt(all.first)} | ${fmt(all.later.median)} | ${fmt(all.later.p95)} |`,
);
const later = summarize(likeLater);
console.log(
  `| like top ${like.top}: first page (learning and scoring), then later pages | ${fmt(likeFirst)} | ${fmt(later.median)} | ${fmt(later.p95)} |`,
);

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

agent.destroy();
await server.close();
await core.shutdown();
restore();
rmSync(home, { recursive: true, force: true });
