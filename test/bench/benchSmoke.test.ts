// The benchmark must compare like with like: on the shared test dataset, every workload query gives
// the same total and the same PID pages from the engine and from DuckDB.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { DuckReference } from '../../bench/duckdbReference';
import { countAudiences, pagingAudiences, spreadSkips, type AudienceSpec } from '../../bench/workload';

let dir: string;
let dataset: Dataset;
let engine: EmbeddedEngine;
let duck: DuckReference;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-bench-smoke-'));
  dataset = Dataset.open(inject('datasetPath'));
  engine = new EmbeddedEngine(dataset, { selectionCacheBytes: 0 });
  duck = (await DuckReference.load(dataset, join(dir, 'records.csv'))).duck;
});
afterAll(() => {
  dataset.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (a: AudienceSpec, limit = 0, skip = 0) => normalizeAudienceRequest({ state: a.state, filters: a.filters, limit, skip });

describe('benchmark workload', () => {
  it('counts the same as DuckDB for every count query, and not only zeros', async () => {
    const audiences = countAudiences(engine);
    expect(audiences).toHaveLength(20);
    let nonZero = 0;
    for (const a of audiences) {
      const ours = engine.count(request(a));
      expect(ours, `${a.state} ${a.label}`).toBe(await duck.count(a.state, a.filters));
      if (ours > 0) nonZero++;
    }
    expect(nonZero).toBeGreaterThan(12);
  });

  it('pages the same people as DuckDB at every skip, in preview and search', async () => {
    for (const a of pagingAudiences()) {
      const total = engine.count(request(a));
      for (const skip of spreadSkips(total, 50)) {
        expect(engine.previewPage(request(a), skip, 50).results.map((r) => r.pid)).toEqual(
          await duck.previewPids(a.state, a.filters, 50, skip),
        );
      }
      for (const skip of spreadSkips(total, 100)) {
        expect(engine.recordPage(request(a), skip, 100).records.map((b) => JSON.parse(b.toString('utf8'))[0])).toEqual(
          await duck.searchPids(a.state, a.filters, 100, skip),
        );
      }
    }
  });
});
