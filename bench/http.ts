// `npx tsx bench/http.ts --rows N [--seed S] [--runs R] [--prof DIR] [--record]`: only the HTTP load
// of `npm run bench`, against the dataset that run generated, repeated R times, for working on the
// request path without the whole benchmark. --prof writes the server's CPU profiles to DIR;
// --record stores every run (and the best) as `http` in bench/results-<rows>.json.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { httpLoad, type HttpResult } from './httpLoad';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '1' },
    prof: { type: 'string' },
    record: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '10' },
  },
});
const datasetPath = join(import.meta.dirname, 'data', `bench-${values.rows}-${values.seed}.sqlite`);
if (!existsSync(datasetPath)) throw new Error(`No ${datasetPath}: run npm run bench -- --rows ${values.rows} first.`);
const results: HttpResult[] = [];
for (let run = 0; run < Number(values.runs); run++) {
  const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-home-'));
  const serverNodeOptions = values.prof ? `--cpu-prof --cpu-prof-dir=${values.prof}` : undefined;
  const r = await httpLoad(datasetPath, home, { seconds: Number(values.seconds), serverNodeOptions });
  rmSync(home, { recursive: true, force: true });
  results.push(r);
  console.log(
    `${Math.round(r.requestsPerSecond)} requests/s, p99 ${r.p99Ms} ms, non-2xx ${r.non2xx}, ${r.requests} requests; CPU ms a request: server ${r.serverCpuMsPerRequest?.toFixed(3)}, load generator ${r.loadGeneratorCpuMsPerRequest.toFixed(3)}`,
  );
}
if (values.record) {
  const path = join(import.meta.dirname, `results-${values.rows}.json`);
  const saved = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const best = results.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
  saved.http = { ...best, runs: results, measuredAt: new Date().toISOString() };
  writeFileSync(path, JSON.stringify(saved, null, 2) + '\n');
}
