// Scans split over two cores (twoCoreScan.ts, scanJob.ts, scanWorker.ts) answer exactly as one core does: the
// same counts and the same pages at any depth, for every kind of filter (dictionary codes, integer
// bands, hashed strings checked against the records), on a real generated file whose vectors are in
// shared memory. The split is forced on for these small states (scanSplitFrom: 1), and the worker
// is seen to have answered; when it is stopped the engine goes on alone with the same answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { fieldIndex } from '../../src/shared/fields';

type Filters = Array<[string, Array<string | number>]>;

let dir: string;
let path: string;
let split: EmbeddedEngine;
let single: EmbeddedEngine;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-two-cores-'));
  path = join(dir, 'd.sqlite');
  // A low dictionary limit makes names and PIDs hashed, so the record check runs after a split scan.
  generateDataset({ rows: 8000, seed: 12, out: path, dictionaryLimit: 50 });
  split = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 1 });
  single = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 0 });
  expect(await split.twoCores!.whenRunning()).toBe(true);
  // These states are small enough for this thread to take every piece before the worker wakes:
  // it waits for the worker's first piece, so both threads' pieces meet in every answer.
  split.twoCores!.workerFirst = true;
}, 120_000);
afterAll(() => {
  split.close();
  single.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Values real records of `state` hold, so the hashed filters match someone. */
function valuesOf(state: string, field: string, n: number): string[] {
  const records = single.recordPage(normalizeAudienceRequest({ state, filters: [] }), 0, 200).records;
  const values = records.map((r) => (JSON.parse(r.toString('utf8')) as unknown[])[fieldIndex(field)] as string);
  return [...new Set(values.filter((v) => v !== ''))].slice(0, n);
}

function audiences(state: string): Filters[] {
  const zips = valuesOf(state, 'ZIP', 5);
  return [
    [['GENDER', ['F']]],
    [
      ['GENDER', ['M']],
      ['MARRIEDCD', ['M']],
    ],
    [
      ['GENDER', ['F']],
      ['MARRIEDCD', ['S']],
      ['AGE', ['20-24', '25-29', '45-49']],
    ],
    [['AGE', ['18-40', '70+']]],
    [
      ['ZIP', zips],
      ['AGE', ['30+']],
    ],
    [['LNAME', valuesOf(state, 'LNAME', 3)]],
    [
      ['PID', valuesOf(state, 'PID', 4)],
      ['GENDER', ['F', 'M', 'U']],
    ],
    [
      ['HOMEOWNERC', ['H']],
      ['GENDER', ['F']],
      ['AGE', ['25-64']],
      ['MARRIEDCD', ['M', 'S']],
      ['ZIP', zips.slice(0, 2)],
    ],
  ];
}

function answers(engine: EmbeddedEngine, state: string, filters: Filters) {
  const audience = normalizeAudienceRequest({ state, filters });
  const count = engine.count(audience);
  const deep = Math.max(0, count - 7);
  return { count, first: engine.previewPage(audience, 0, 25), deep: engine.previewPage(audience, deep, 25) };
}

describe('scans on two cores', () => {
  it('count and page exactly as one core, for every kind of filter, in states of every size', () => {
    let nonEmpty = 0;
    for (const state of ['CA', 'TX', 'NY', 'WY']) {
      for (const filters of audiences(state)) {
        const expected = answers(single, state, filters);
        expect(answers(split, state, filters), `${state} ${JSON.stringify(filters)}`).toEqual(expected);
        if (expected.count > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(24);
    // Every count and page above of a multi-record state went through the worker.
    expect(split.twoCores!.jobsDone).toBeGreaterThan(60);
    expect(single.twoCores).toBeNull();
  });

  it('counts right on a fresh engine, before any page has listed positions', async () => {
    // Counts of three filters or more list positions on both halves before their last pass.
    const fresh = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 1 });
    try {
      expect(await fresh.twoCores!.whenRunning()).toBe(true);
      fresh.twoCores!.workerFirst = true;
      // Dictionary and integer filters only: a hashed one lists its positions for the record check.
      const unhashed = (filters: Filters) => filters.every(([field]) => !['ZIP', 'LNAME', 'PID'].includes(field));
      let checked = 0;
      for (const state of ['CA', 'TX'])
        for (const filters of audiences(state).filter(unhashed).reverse()) {
          const audience = normalizeAudienceRequest({ state, filters });
          expect(fresh.count(audience), `${state} ${JSON.stringify(filters)}`).toBe(single.count(audience));
          checked++;
        }
      expect(checked).toBe(8);
      expect(fresh.twoCores!.jobsDone).toBe(checked);
    } finally {
      fresh.close();
    }
  });

  it('answers the same when this thread takes every piece before the worker wakes', () => {
    const eager = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 1 });
    try {
      for (const state of ['CA', 'NY'])
        for (const filters of audiences(state)) expect(answers(eager, state, filters)).toEqual(answers(single, state, filters));
    } finally {
      eager.close();
    }
  });

  it('goes on alone, with the same answers, once the worker is stopped; the worker ends itself, never terminated', async () => {
    // Terminated, it would exit with 1; better-sqlite3 13, which it reads pieces through, aborts the
    // process when that happens inside one of its calls. Asked to stop, it ends with 0.
    const worker = (split.twoCores as unknown as { worker: Worker }).worker;
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    split.twoCores!.stop();
    expect(await exited).toBe(0);
    const done = split.twoCores!.jobsDone;
    for (const filters of audiences('CA')) expect(answers(split, 'CA', filters)).toEqual(answers(single, 'CA', filters));
    expect(split.twoCores!.running).toBe(false);
    expect(split.twoCores!.jobsDone).toBe(done);
  });
});
