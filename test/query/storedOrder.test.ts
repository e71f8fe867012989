// A file stored in household order (the generator's: a state's households by ZIP, with PID ranks,
// dataset/format/pidRanks.ts) answers exactly as the same records written in PID order: counts, pages at
// every depth, search records, list controls (one a household, samples of both kinds, near,
// contact) and cross-state totals; only an export's order differs, storage order, whose records
// are the same. The household file is also the smaller one (what the order is for).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import { PID_ORDER_KEY } from '../../src/core/dataset/format/pidRanks';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { generateDataset, generateRecords } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { fieldIndex } from '../../src/shared/fields';
import { engineAudience } from '../support/audienceQueries';
import { copyWithMeta } from '../support/datasetMeta';

const ROWS = 24_000;
const SEED = 61;
const [PID, ZIP, STATE] = ['PID', 'ZIP', 'STATE'].map(fieldIndex) as [number, number, number];

let dir: string;
let householdPath: string;
let pidPath: string;
let stored: EmbeddedEngine;
let inPidOrder: EmbeddedEngine;
/** The household file with every state's whole PID order kept (the warm-up's), and a copy written before orders were stored. */
let warmed: EmbeddedEngine;
let writtenBefore: EmbeddedEngine;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-order-'));
  householdPath = join(dir, 'household.sqlite');
  pidPath = join(dir, 'pid.sqlite');
  generateDataset({ rows: ROWS, seed: SEED, out: householdPath });
  const writer = new DatasetWriter(pidPath, { seed: String(SEED) });
  for (const record of generateRecords(ROWS, SEED)) writer.append(record);
  writer.finish();
  // No selection cache: every page is worked out again, through the order, not remembered.
  const options = { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 0 };
  stored = new EmbeddedEngine(Dataset.open(householdPath), options);
  inPidOrder = new EmbeddedEngine(Dataset.open(pidPath), options);
  const beforePath = copyWithMeta(householdPath, join(dir, 'before.sqlite'), { [PID_ORDER_KEY]: null });
  const db = new Database(beforePath);
  db.exec('DROP TABLE pid_order');
  db.close();
  writtenBefore = new EmbeddedEngine(Dataset.open(beforePath), { ...options, pidOrderWarmup: false });
  await new Promise<void>((done) => {
    warmed = new EmbeddedEngine(Dataset.open(householdPath), { ...options, pidOrderWarmup: { from: 0, delayMs: 0, onFinished: done } });
  });
}, 180_000);
afterAll(() => {
  for (const engine of [stored, inPidOrder, warmed, writtenBefore]) engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

const REQUESTS: Array<Record<string, unknown>> = [
  { state: 'CA', filters: [] },
  { state: 'TX', filters: [['GENDER', ['F']]] },
  { state: 'CA', filters: [['AGE', ['30-34', '55-59']]] },
  { state: 'NY', filters: [['MARRIEDCD', ['M']]], households: 'one' },
  { state: 'CA', filters: [], households: 'one' },
  { state: 'FL', filters: [['GENDER', ['M']]], sample: { every: 7 } },
  { state: 'CA', filters: [['AGE', ['20-24', '25-29', '45-49']]], sample: { size: 300, seed: 9 } },
  { state: 'TX', filters: [], near: { lat: 29.76, lon: -95.37, miles: 40 } },
  { state: 'CA', filters: [], contact: { phone: 'callable', mail: 'deliverable' }, households: 'one', sample: { size: 50, seed: 2 } },
  { state: 'WY', filters: [] },
];

async function answers(engine: EmbeddedEngine, request: Record<string, unknown>) {
  const audience = await engineAudience(engine, request);
  const total = engine.count(audience);
  const pages = [0, 1, 37, Math.floor(total / 2), Math.max(0, total - 3)].map((skip) => engine.previewPage(audience, skip, 25));
  const records = engine.recordPage(audience, Math.floor(total / 3), 10).records.map((b) => b.toString('utf8'));
  return { total, pages, records, steps: engine.steps(audience) };
}

async function exported(engine: EmbeddedEngine, request: Record<string, unknown>): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of engine.records(await engineAudience(engine, request)).batches(500)) out.push(...batch);
  return out;
}

describe('records stored in household order', () => {
  it('are stored that way: by ZIP within a state, with the PID order kept beside them', () => {
    const dataset = stored.dataset;
    expect(dataset.inPidOrder).toBe(false);
    expect(inPidOrder.dataset.inPidOrder).toBe(true);
    for (const range of dataset.stateCounts()) {
      const { order } = dataset.pidOrder(range)!;
      const rows = dataset.valuesOf(
        Array.from({ length: range.count }, (_, k) => range.first + k),
        [PID, ZIP],
      );
      // The positions in the stored order read ZIPs ascending...
      for (let k = 1; k < rows.length; k++) expect(rows[k]![1]! >= rows[k - 1]![1]!).toBe(true);
      // ...and the PID order read through the ranks, PIDs ascending.
      for (let r = 1; r < order.length; r++) expect(rows[order[r]!]![0]! > rows[order[r - 1]!]![0]!).toBe(true);
    }
    expect(statSync(householdPath).size).toBeLessThan(statSync(pidPath).size * 0.85);
  });

  it('answer every count, page, search and list control as the same records in PID order', async () => {
    for (const request of REQUESTS) {
      const expected = await answers(inPidOrder, request);
      expect(expected.total, JSON.stringify(request)).toBeGreaterThan(0);
      // Through the stored order, through the whole order the warm-up keeps, and through one built from the ranks.
      for (const engine of [stored, warmed, writtenBefore])
        expect(await answers(engine, request), JSON.stringify(request)).toEqual(expected);
    }
  });

  it('count a state, whole or filtered, without its PID order; a page reads only the chunk of the stored order it needs', async () => {
    const dataset = Dataset.open(householdPath);
    const engine = new EmbeddedEngine(dataset, { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 0 });
    try {
      const builds = vi.spyOn(dataset, 'pidOrder');
      const reads = vi.spyOn(dataset, 'pidOrderChunk');
      for (const request of [REQUESTS[0]!, REQUESTS[2]!, REQUESTS[9]!]) {
        const audience = await engineAudience(engine, request);
        const expected = await engineAudience(inPidOrder, request);
        expect(engine.count(audience), JSON.stringify(request)).toBe(inPidOrder.count(expected));
      }
      expect(reads).not.toHaveBeenCalled();
      // California lies in one chunk of the order: its first pages, whole and filtered, read that chunk once.
      const california = dataset.stateRange('CA');
      expect(Math.floor(california.first / dataset.pidOrderChunkSize)).toBe(
        Math.floor((california.first + california.count - 1) / dataset.pidOrderChunkSize),
      );
      for (const request of [REQUESTS[0]!, REQUESTS[2]!]) {
        const audience = await engineAudience(engine, request);
        expect(engine.previewPage(audience, 0, 5).total).toBe(engine.count(audience));
      }
      expect(reads).toHaveBeenCalledTimes(1);
      expect(builds).not.toHaveBeenCalled();
    } finally {
      engine.close();
    }
  });

  it('profile an audience alike before and after a page has walked it', async () => {
    // The selection cache on: after a page, the profile reads the walked audience's bits (Selection.ascending).
    const dataset = Dataset.open(householdPath);
    const engine = new EmbeddedEngine(dataset, { backgroundVerify: false, scanSplitFrom: 0 });
    try {
      const fields = ['AGE', 'GENDER', 'HOMEOWNERC', 'ZIP'].map(fieldIndex);
      const sorted = (groups: ReturnType<EmbeddedEngine['groupCountsMany']>) =>
        groups.map((g) => [...g].sort((a, b) => String(a.values[0]).localeCompare(String(b.values[0]))));
      for (const request of [REQUESTS[1]!, REQUESTS[2]!]) {
        const audience = await engineAudience(engine, request);
        const expected = sorted(inPidOrder.groupCountsMany(await engineAudience(inPidOrder, request), fields));
        expect(sorted(engine.groupCountsMany(audience, fields)), JSON.stringify(request)).toEqual(expected);
        engine.previewPage(audience, 0, 5);
        expect(sorted(engine.groupCountsMany(audience, fields)), JSON.stringify(request)).toEqual(expected);
      }
    } finally {
      engine.close();
    }
  });

  it('export the same records, in storage order', async () => {
    // Whole, filtered (a walked audience: its bits read, no order paged), one a household, sampled.
    for (const request of [REQUESTS[0]!, REQUESTS[1]!, REQUESTS[2]!, REQUESTS[3]!, REQUESTS[6]!]) {
      const fromStored = await exported(stored, request);
      const fromPidOrder = await exported(inPidOrder, request);
      for (const engine of [warmed, writtenBefore]) expect(await exported(engine, request), JSON.stringify(request)).toEqual(fromStored);
      expect(fromStored.length).toBe(fromPidOrder.length);
      expect([...fromStored].sort()).toEqual([...fromPidOrder].sort());
      const rows = fromStored.map((t) => JSON.parse(t) as Array<string | number>);
      expect(rows.every((r) => r[STATE] === request.state)).toBe(true);
      for (let k = 1; k < rows.length; k++) expect(rows[k]![ZIP]! >= rows[k - 1]![ZIP]!).toBe(true);
      // And not by accident in PID order too.
      expect(rows.some((r, k) => k > 0 && r[PID]! < rows[k - 1]![PID]!)).toBe(true);
    }
  });
});
