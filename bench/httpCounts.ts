// Counts through the HTTP API as a local tool asks them (POST /api/audiences/preview with limit 0,
// a key, keep-alive), against a server of this process over the bench's dataset: what a user of the
// API waits for, beside DuckDB answering the same count in-process (issue 16: at most half of
// DuckDB's median at 2M records). The server answers as it does for anyone: a count keeps no
// positions (EmbeddedEngine.count), so repeating one does the work again.
//
// The client is node:http with a kept-alive socket, not fetch: a local tool is a process of its own,
// with its own client, so the client's work here is the bench's, not the server's, and on two cores
// it competes with the server for CPU. fetch (undici with web streams) took ~0.5 ms of CPU a request
// more than node:http here (1.3-1.8 against 0.65-0.83 ms a request, client and server together, on
// the 100k sample), half of what a count through HTTP costs at 2M records.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { overrideSettings } from '../src/core/config';
import { createCore } from '../src/core/createCore';
import { ApiServer } from '../src/server/apiServer';
import type { DuckReference } from './duckdbReference';
import { summarize, timeIt, type Summary } from './stats';
import type { AudienceSpec, Filters } from './workload';

export interface HttpCounter {
  count(state: string, filters: Filters): Promise<number>;
  close(): Promise<void>;
}

export async function startHttpCounter(datasetPath: string): Promise<HttpCounter> {
  const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-http-counts-'));
  // The background verify would read the whole file on the other core while counts are timed.
  const restore = overrideSettings({ backgroundVerify: false });
  const core = createCore({ homeDir: home, datasetPath });
  const server = new ApiServer(core);
  const url = new URL(await server.listen(0));
  const { key } = core.keys.create('bench http counts');
  // One socket, kept alive: requests go one at a time, as a tool waiting for each count sends them.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    count(state, filters) {
      const body = JSON.stringify({ state, limit: 0, filters });
      return new Promise((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/api/audiences/preview',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': key },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', reject);
            res.on('end', () => {
              try {
                const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { total?: number };
                if (res.statusCode !== 200 || typeof answer.total !== 'number')
                  throw new Error(`HTTP count of ${state}: ${res.statusCode}`);
                resolve(answer.total);
              } catch (e) {
                reject(e as Error);
              }
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
    async close() {
      agent.destroy();
      await server.close();
      await core.shutdown();
      restore();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** One row of the comparison: a group of counts with the same number of filters. */
export interface HttpCountRow {
  what: string;
  http: Summary;
  duckdb: Summary;
  medianRatio: number;
}

/**
 * The counts of `counts` (1 to 5 filters) through the HTTP API of a server over `datasetPath`,
 * each beside DuckDB's in-process count of the same audience, alternating, `repeat` times each.
 */
export async function compareHttpCounts(
  datasetPath: string,
  duck: DuckReference,
  counts: readonly AudienceSpec[],
  repeat: number,
): Promise<HttpCountRow[]> {
  const counter = await startHttpCounter(datasetPath);
  const rows: HttpCountRow[] = [];
  try {
    for (let k = 1; k <= 5; k++) {
      const group = counts.filter((a) => a.filters.length === k);
      const ours: number[] = [];
      const theirs: number[] = [];
      for (const a of group) {
        await counter.count(a.state, a.filters); // the server's first use of the fields
        for (let i = 0; i < repeat; i++) {
          ours.push(await timeIt(() => counter.count(a.state, a.filters)));
          theirs.push(await timeIt(() => duck.count(a.state, a.filters)));
        }
      }
      const http = summarize(ours);
      const duckdb = summarize(theirs);
      rows.push({ what: `count through HTTP, ${group[0]!.label}`, http, duckdb, medianRatio: http.median / duckdb.median });
    }
  } finally {
    await counter.close();
  }
  return rows;
}
