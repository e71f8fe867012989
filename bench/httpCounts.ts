// Counts through the HTTP API as a local tool asks them (POST /api/audiences/preview with limit 0,
// a key, keep-alive), against a server of this process over the bench's dataset: what a user of the
// API waits for, beside DuckDB answering the same count in-process (issue 16: at most half of
// DuckDB's median at 2M records). The server answers as it does for anyone: a count keeps no
// positions (EmbeddedEngine.count), so repeating one does the work again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { overrideSettings } from '../src/core/config';
import { createCore } from '../src/core/createCore';
import { ApiServer } from '../src/server/apiServer';
import type { Filters } from './workload';

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
  const url = await server.listen(0);
  const { key } = core.keys.create('bench http counts');
  return {
    async count(state, filters) {
      const res = await fetch(`${url}/api/audiences/preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ state, limit: 0, filters }),
      });
      const body = (await res.json()) as { total?: number };
      if (res.status !== 200 || typeof body.total !== 'number') throw new Error(`HTTP count of ${state}: ${res.status}`);
      return body.total;
    },
    async close() {
      await server.close();
      await core.shutdown();
      restore();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
