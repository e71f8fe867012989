// First use of a field ("cold"): a count whose filter names a field no query of the process has
// used yet, so its vector is read from the file, checked and decompressed first (issue 16's target:
// 10M p95 under 50 ms). Measured through the engine on a freshly opened dataset, and through the
// HTTP API of a freshly started server (in this process), one new field a request. The OS page
// cache is whatever earlier steps left: warm, as in a running app.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { overrideSettings } from '../src/core/config';
import { createCore } from '../src/core/createCore';
import { Dataset } from '../src/core/dataset/read/dataset';
import { EmbeddedEngine } from '../src/core/query/embeddedEngine';
import { ApiServer } from '../src/server/apiServer';
import { normalizeAudienceRequest } from '../src/shared/audienceRequest';
import { FIELDS } from '../src/shared/fields';
import { summarize, type Summary } from './stats';

/** Filterable fields spread over the catalog (dictionary codes, integers, hashes), and a value each from the first records. */
function fieldFilters(dataset: Dataset, count: number, skip: number): Array<[string, string[]]> {
  const filterable = FIELDS.map((f, i) => ({ f, i })).filter(({ f }) => f.type !== 'number' && f.name !== 'STATE');
  const step = Math.max(1, Math.floor(filterable.length / count));
  const records = dataset.fullRows(Array.from({ length: Math.min(200, dataset.records) }, (_, k) => k));
  const out: Array<[string, string[]]> = [];
  for (let k = skip; k < filterable.length && out.length < count; k += step) {
    const { f, i } = filterable[k]!;
    // A value some record holds, not empty (an empty value is a filter of its own kind).
    const value = records.map((r) => String(r[i])).find((v) => v !== '');
    if (value !== undefined) out.push([f.name, [value]]);
  }
  return out;
}

/** Each field's first count, in ms: which fields make the p95. */
export interface ColdField {
  field: string;
  ms: number;
}

/**
 * Fields timed, through the engine and through HTTP each (other fields for each): 40, so that the
 * p95 is a percentile, where of 20 (18 with a value in the first records) it was their maximum, a
 * single slow request on this shared machine.
 */
const FIELDS_TIMED = 40;

/** The first uses of one state's fields, through the engine and through HTTP, in ms. */
export interface ColdFields {
  engine: Summary;
  http: Summary;
  slowest: { engine: ColdField[]; http: ColdField[] };
  firstHttpRequestMs: number;
}

export async function measureColdFields(datasetPath: string, state: string, fields = FIELDS_TIMED): Promise<ColdFields> {
  const engineFields: ColdField[] = [];
  const dataset = Dataset.open(datasetPath);
  const engine = new EmbeddedEngine(dataset, { selectionCacheBytes: 0, backgroundVerify: false });
  // The scan worker starts with the engine; a field's first use is timed, not the thread's start.
  await engine.twoCores?.whenRunning();
  for (const filter of fieldFilters(dataset, fields, 0)) {
    const t = performance.now();
    engine.count(normalizeAudienceRequest({ state, filters: [filter] }));
    engineFields.push({ field: filter[0], ms: performance.now() - t });
  }
  dataset.close();

  // Other fields than the engine's above (a server of its own either way).
  const home = mkdtempSync(join(tmpdir(), 'audience-desk-bench-cold-'));
  // The background verify would read every vector on the other core meanwhile: off, as for the engine.
  const restore = overrideSettings({ backgroundVerify: false });
  const core = createCore({ homeDir: home, datasetPath });
  const server = new ApiServer(core);
  const httpFields: ColdField[] = [];
  let firstHttpRequestMs: number;
  try {
    const url = await server.listen(0);
    const { key } = core.keys.create('bench cold fields');
    const probe = Dataset.open(datasetPath);
    const filters = fieldFilters(probe, fields, 1);
    probe.close();
    const countMs = async (filters: Array<[string, string[]]>): Promise<number> => {
      const t = performance.now();
      const res = await fetch(`${url}/api/audiences/preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ state, limit: 0, filters }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`cold count ${JSON.stringify(filters)}: HTTP ${res.status}`);
      return performance.now() - t;
    };
    // The server's first answer (no filter, so no field is read) is timed on its own: it pays for
    // the process's first request (code compiled on first use), which is not a field's cost. The
    // bench's own client is warmed first on a throwaway server: a local tool is a process of its
    // own, and fetch's first call here loads undici (~50-100 ms), which is not the server's cost.
    await warmClient();
    firstHttpRequestMs = await countMs([]);
    for (const filter of filters) httpFields.push({ field: filter[0], ms: await countMs([filter]) });
  } finally {
    await server.close();
    await core.shutdown();
    restore();
    rmSync(home, { recursive: true, force: true });
  }
  const slowest = (list: ColdField[]) => [...list].sort((a, b) => b.ms - a.ms).slice(0, 5);
  const times = (list: ColdField[]) => summarize(list.map((f) => f.ms));
  return {
    engine: times(engineFields),
    http: times(httpFields),
    slowest: { engine: slowest(engineFields), http: slowest(httpFields) },
    firstHttpRequestMs,
  };
}

/** One fetch to a server of no consequence, so the client's own first-call costs are paid. */
async function warmClient(): Promise<void> {
  const other = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((listening) => other.listen(0, '127.0.0.1', listening));
  try {
    await (await fetch(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`)).text();
  } finally {
    other.closeAllConnections();
    await new Promise((closed) => other.close(closed));
  }
}
