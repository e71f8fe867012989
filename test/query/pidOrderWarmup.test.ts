// Right after open, a worker builds the PID order of a household-ordered file's large states,
// largest first within half the budget of derived arrays, and the engine keeps each as it arrives:
// the first page of a warmed state then builds nothing, and answers exactly as an engine without the
// warm-up. A state past the budget, or a file in PID order, is left to its first page as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { LruCache } from '../../src/core/cache/lruCache';
import { VerifyGate } from '../../src/core/dataset/verify/verifyGate';
import { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { generateDataset, generateRecords } from '../../src/core/generate';
import type { Derived } from '../../src/core/query/derivedArrays';
import { warmPidOrders } from '../../src/core/query/pidOrderWarmup';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { engineAudience } from '../support/audienceQueries';

let dir: string;
let path: string;
const ROWS = 4000;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-warmup-'));
  path = join(dir, 'people.sqlite');
  generateDataset({ rows: ROWS, seed: 21, out: path });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An engine whose warm-up counts from `from` people and keeps `budget` bytes of derived arrays; resolves once the worker is done. */
async function warmedEngine(
  from: number,
  budget: number,
  delayMs = 0,
): Promise<{ engine: EmbeddedEngine; warmed: string[]; startedAfter: number }> {
  const warmed: string[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const opened = performance.now();
  let startedAfter = -1;
  const engine = new EmbeddedEngine(Dataset.open(path), {
    backgroundVerify: false,
    derivedCacheBytes: budget,
    pidOrderWarmup: {
      from,
      delayMs,
      onWarmed: (state) => {
        if (warmed.push(state) === 1) startedAfter = performance.now() - opened;
      },
      onFinished: done,
    },
  });
  await finished;
  return { engine, warmed, startedAfter };
}

describe('the PID-order warm-up', () => {
  it('builds the large states largest first, and their first pages then build nothing and answer as without it', async () => {
    const { engine, warmed } = await warmedEngine(100, 64 << 20);
    const plain = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, pidOrderWarmup: false });
    try {
      const bySize = engine.dataset
        .stateCounts()
        .filter((r) => r.count >= 100)
        .sort((a, b) => b.count - a.count)
        .map((r) => r.state);
      expect(bySize.length).toBeGreaterThan(3);
      expect(warmed).toEqual(bySize);
      const built = vi.spyOn(engine.dataset, 'pidOrder');
      const read = vi.spyOn(engine.dataset, 'pidOrderChunk');
      for (const state of warmed) {
        const body = { state, filters: [['GENDER', ['F']]] };
        const [a, b] = [await engineAudience(engine, body), await engineAudience(plain, body)];
        const page = engine.recordPage(a, 7, 20);
        expect(page.records.map(String)).toEqual(plain.recordPage(b, 7, 20).records.map(String));
        expect(page.records.length).toBeGreaterThan(0);
      }
      expect(built).not.toHaveBeenCalled();
      expect(read).not.toHaveBeenCalled();
      // A state under the threshold pages through the order the file stores, building none.
      const small = engine.dataset.stateCounts().find((r) => r.count > 0 && r.count < 100)!;
      engine.recordPage(await engineAudience(engine, { state: small.state, filters: [] }), 0, 5);
      expect(read).toHaveBeenCalled();
      expect(built).not.toHaveBeenCalled();
    } finally {
      engine.close();
      plain.close();
    }
  });

  it('waits the delay it is given before it reads anything (a file that stores its orders waits a few seconds by default)', async () => {
    const { engine, warmed, startedAfter } = await warmedEngine(100, 64 << 20, 400);
    try {
      expect(warmed.length).toBeGreaterThan(3);
      // A timer never fires before its time: the first order arrives no sooner.
      expect(startedAfter).toBeGreaterThanOrEqual(399);
    } finally {
      engine.close();
    }
  });

  it('builds nothing while a request computes, and goes on once none does', async () => {
    const dataset = Dataset.open(path);
    const gate = new VerifyGate();
    // What hold() does while a request computes, kept up from the test's thread without blocking it.
    const computing = new Int32Array(gate.buffer, 0, 1);
    Atomics.add(computing, 0, 1);
    const warmed: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    try {
      const started = warmPidOrders(dataset, new LruCache<Derived>(64 << 20), gate, {
        from: 100,
        delayMs: 0,
        budgetBytes: 64 << 20,
        onWarmed: (state) => warmed.push(state),
        onFinished: done,
      });
      expect(started).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(warmed).toEqual([]);
      Atomics.sub(computing, 0, 1);
      Atomics.notify(computing, 0);
      await finished;
      expect(warmed.length).toBeGreaterThan(3);
    } finally {
      gate.close();
      dataset.close();
    }
  });

  it('stays within half the budget of derived arrays: only the largest states that fit', async () => {
    const ranges = Dataset.open(path);
    const sorted = [...ranges.stateCounts()].sort((a, b) => b.count - a.count);
    ranges.close();
    // Room (at half the budget, 8 bytes a person) for the two largest states, not the third.
    const budget = 2 * 8 * (sorted[0]!.count + sorted[1]!.count) + 8;
    const { engine, warmed } = await warmedEngine(1, budget);
    engine.close();
    expect(warmed).toEqual([sorted[0]!.state, sorted[1]!.state]);
  });

  it('starts no worker for a file in PID order, nor for states all under the threshold', () => {
    const inPidOrder = join(dir, 'pid.sqlite');
    const writer = new DatasetWriter(inPidOrder);
    for (const record of generateRecords(500, 21)) writer.append(record);
    writer.finish();
    const cases: Array<[string, number]> = [
      [inPidOrder, 1],
      [path, ROWS + 1],
    ];
    for (const [file, from] of cases) {
      const dataset = Dataset.open(file);
      try {
        expect(warmPidOrders(dataset, new LruCache<Derived>(64 << 20), new VerifyGate(), { from, budgetBytes: 64 << 20 })).toBe(false);
      } finally {
        dataset.close();
      }
    }
    // The same call on the household-ordered file with a reachable threshold does start one.
    const dataset = Dataset.open(path);
    expect(warmPidOrders(dataset, new LruCache<Derived>(64 << 20), new VerifyGate(), { from: 1, budgetBytes: 64 << 20 })).toBe(true);
    dataset.close();
  });
});
