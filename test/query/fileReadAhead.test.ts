// The read-ahead of what the first requests read from the file (query/fileReadAhead.ts): each state's
// first people in PID order found through the stored order are the state's lowest PIDs (checked
// against the PIDs themselves, not the order); the thread reads their blocks and the lookups over
// the whole file, and says so; it waits while a request computes, and stops when the gate closes or
// the path holds another file; it does not start for a file the OS holds already.
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { PID_ORDER_KEY } from '../../src/core/dataset/format/pidRanks';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { VerifyGate } from '../../src/core/dataset/verify/verifyGate';
import { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { generateDataset, generateRecords } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { readFileAhead } from '../../src/core/query/fileReadAhead';
import { FIRST_PAGE_PEOPLE, INTERIOR_STRIDE, firstPagePositions, interiorLookups } from '../../src/core/query/fileReadAheadSteps';
import { fieldIndex } from '../../src/shared/fields';
import { copyWithMeta } from '../support/datasetMeta';

const ROWS = 6_000;
const SEED = 17;
/** Small order chunks, so that some state's first people lie across two of them. */
const CHUNK = 500;
const PID = fieldIndex('PID');
/** What the cache probe would say of a file the OS has not cached: a test's files always are. */
const cold = (): boolean => false;

let dir: string;
let householdPath: string;
let pidPath: string;
let beforePath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-read-ahead-'));
  householdPath = join(dir, 'household.sqlite');
  pidPath = join(dir, 'pid.sqlite');
  generateDataset({ rows: ROWS, seed: SEED, out: householdPath, vectorChunk: CHUNK });
  const writer = new DatasetWriter(pidPath, { seed: String(SEED) });
  for (const record of generateRecords(ROWS, SEED)) writer.append(record);
  writer.finish();
  // The household file as written before orders were stored.
  beforePath = copyWithMeta(householdPath, join(dir, 'before.sqlite'), { [PID_ORDER_KEY]: null });
  const db = new Database(beforePath);
  db.exec('DROP TABLE pid_order');
  db.close();
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `use` on the dataset at `path`, closed after. */
async function withDataset<T>(path: string, use: (dataset: Dataset) => T | Promise<T>): Promise<T> {
  const dataset = Dataset.open(path);
  try {
    return await use(dataset);
  } finally {
    dataset.close();
  }
}

/** The positions of the state's `n` lowest PIDs, lowest first, from the PIDs themselves. */
function lowestPids(dataset: Dataset, first: number, count: number, n: number): number[] {
  const positions = Array.from({ length: count }, (_, k) => first + k);
  const pids = dataset.valuesOf(positions, [PID]).map((v) => String(v[0]));
  return positions.sort((a, b) => (pids[a - first]! < pids[b - first]! ? -1 : 1)).slice(0, n);
}

/** What the thread must read in `dataset`: the distinct blocks of each state's first page, and the lookups. */
function expectedCounts(dataset: Dataset): { blocks: number; lookups: number } {
  const reader = dataset.blockReadAhead();
  let blocks = 0;
  for (const range of dataset.stateCounts()) blocks += reader.blocksOf(firstPagePositions(dataset, range)).length;
  return { blocks, lookups: Math.ceil(reader.blockCount / INTERIOR_STRIDE) };
}

describe('the first people of each state', () => {
  it('are its lowest PIDs, through the stored order, also where they lie across two of its chunks', () =>
    withDataset(householdPath, (dataset) => {
      expect(dataset.inPidOrder).toBe(false);
      expect(dataset.storesPidOrder).toBe(true);
      const ranges = dataset.stateCounts().filter((r) => r.count > 0);
      const across = ranges.filter(
        (r) => Math.floor(r.first / CHUNK) !== Math.floor((r.first + Math.min(r.count, FIRST_PAGE_PEOPLE) - 1) / CHUNK),
      );
      expect(across.length).toBeGreaterThan(0);
      for (const range of ranges) {
        const n = Math.min(range.count, FIRST_PAGE_PEOPLE);
        expect(firstPagePositions(dataset, range)).toEqual(lowestPids(dataset, range.first, range.count, n));
      }
    }));

  it('are its first positions in a file in PID order, and none in a file that does not store its orders', async () => {
    await withDataset(pidPath, (dataset) => {
      expect(dataset.inPidOrder).toBe(true);
      for (const range of dataset.stateCounts().filter((r) => r.count > 0)) {
        const n = Math.min(range.count, FIRST_PAGE_PEOPLE);
        expect(firstPagePositions(dataset, range)).toEqual(lowestPids(dataset, range.first, range.count, n));
      }
    });
    await withDataset(beforePath, (dataset) => {
      expect(dataset.storesPidOrder).toBe(false);
      for (const range of dataset.stateCounts()) expect(firstPagePositions(dataset, range)).toEqual([]);
    });
  });

  it('lie in the blocks the reader names, each once and ascending', () =>
    withDataset(householdPath, (dataset) => {
      const reader = dataset.blockReadAhead();
      const perBlock = Number(dataset.meta.block_records);
      const ca = firstPagePositions(dataset, dataset.stateRange('CA'));
      const blocks = reader.blocksOf(ca);
      expect(blocks).toEqual([...new Set(ca.map((p) => Math.floor(p / perBlock)))].sort((a, b) => a - b));
      expect(blocks.length).toBeGreaterThan(1);
    }));
});

it('looks up every stride-th block from the first, and none past the last', () => {
  expect(interiorLookups(1_000, 256)).toEqual([0, 256, 512, 768]);
  expect(interiorLookups(1_024, 256)).toEqual([0, 256, 512, 768]);
  expect(interiorLookups(1_025, 256)).toEqual([0, 256, 512, 768, 1_024]);
  expect(interiorLookups(0, 256)).toEqual([]);
});

describe('the thread', () => {
  it('reads every state’s first page and the lookups, and says how many', { timeout: 30_000 }, () =>
    withDataset(householdPath, async (dataset) => {
      const expected = expectedCounts(dataset);
      expect(expected.blocks).toBeGreaterThan(dataset.stateCounts().filter((r) => r.count > 0).length);
      expect(await readFileAhead(dataset, new VerifyGate(), 0, cold)).toEqual(expected);
    }),
  );

  it('waits while a request computes, and stops when the gate closes', { timeout: 30_000 }, () =>
    withDataset(householdPath, async (dataset) => {
      const gate = new VerifyGate();
      // A request computing (the gate's count of running requests, its first word), as hold() counts one.
      const running = new Int32Array(gate.buffer, 0, 1);
      Atomics.add(running, 0, 1);
      let done: unknown;
      const reading = readFileAhead(dataset, gate, 0, cold).then((counts) => (done = counts));
      await new Promise((r) => setTimeout(r, 400));
      expect(done).toBeUndefined();
      Atomics.sub(running, 0, 1);
      Atomics.notify(running, 0);
      expect(await reading).toEqual(expectedCounts(dataset));
      const closed = new VerifyGate();
      closed.close();
      expect(await readFileAhead(dataset, closed, 0, cold)).toBeNull();
    }),
  );

  it('reads nothing of another file put at the path', { timeout: 30_000 }, async () => {
    const path = join(dir, 'replaced.sqlite');
    copyFileSync(householdPath, path);
    await withDataset(path, async (dataset) => {
      const other = join(dir, 'other.sqlite');
      generateDataset({ rows: 1_000, seed: SEED + 1, out: other });
      renameSync(other, path);
      expect(await readFileAhead(dataset, new VerifyGate(), 0, cold)).toBeNull();
    });
  });

  it('does not start when the dataset closes before its delay is out', async () => {
    const dataset = Dataset.open(householdPath);
    const reading = readFileAhead(dataset, new VerifyGate(), 60_000, cold);
    dataset.close();
    expect(await reading).toBeNull();
  });
});

it('is not started when the OS holds the file already, nor is its thread', async () => {
  await withDataset(householdPath, async (dataset) => {
    const asked: string[] = [];
    const outcome = readFileAhead(dataset, new VerifyGate(), 0, (path) => (asked.push(path), true));
    expect(asked).toEqual([dataset.path]);
    expect(await outcome).toBe('cached');
  });
  // The engine's default: this file was just written and read, so the OS holds it.
  const engine = new EmbeddedEngine(Dataset.open(householdPath), { backgroundVerify: false, pidOrderWarmup: false });
  try {
    await engine.ready();
    expect(await engine.readAhead).toBe('cached');
  } finally {
    engine.close();
  }
});

it('is started by the serving start-up (the engine’s ready()), once', { timeout: 30_000 }, async () => {
  const engine = new EmbeddedEngine(Dataset.open(householdPath), {
    backgroundVerify: false,
    pidOrderWarmup: false,
    fileReadAhead: 'always',
  });
  try {
    expect(engine.readAhead).toBeNull();
    await engine.ready();
    const started = engine.readAhead;
    await engine.ready();
    expect(engine.readAhead).toBe(started);
    expect(await started).toEqual(expectedCounts(engine.dataset));
  } finally {
    engine.close();
  }
});
