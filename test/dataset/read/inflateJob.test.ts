// A read of many record blocks is shared with the scan worker, which reads blocks through its own
// connection (inflateJob.ts, pieceFetch.ts, blockRecords.ts, scanWorker.ts): on a real
// household-ordered file, scattered pages, whole-state reads and exports give exactly the bytes one
// core gives, and the worker is seen to have taken blocks; a damaged block is still
// `dataset_damaged` naming its records, whichever thread met it; a file replaced at the same path
// is not read by the worker; with the worker stopped the reads go on alone with the same answers.
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDS_PER_BLOCK } from '../../../src/core/dataset/codec/blockCodec';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { generateDataset } from '../../../src/core/generate';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../../src/shared/audienceRequest';

/** Records a block of the files written here. */
const PER = RECORDS_PER_BLOCK;
let dir: string;
let path: string;
let shared: EmbeddedEngine;
let single: EmbeddedEngine;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-inflate-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: 12_000, seed: 21, out: path });
  // The worker starts for any state (scanSplitFrom 1); no selection cache, so every page reads again.
  shared = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 1 });
  single = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 0 });
  expect(await shared.twoCores!.whenRunning()).toBe(true);
  // A read of a few dozen blocks is over before the worker wakes: it waits for the worker's first block.
  shared.dataset.blocks!.workerFirst = true;
}, 120_000);
afterAll(() => {
  shared?.close();
  single?.close();
  rmSync(dir, { recursive: true, force: true });
});

const AUDIENCES = [
  { state: 'CA', filters: [['GENDER', ['F']]] },
  { state: 'TX', filters: [['MARRIEDCD', ['M']]] },
  { state: 'CA', filters: [] },
];

async function exported(engine: EmbeddedEngine, body: unknown): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of engine.records(normalizeAudienceRequest(body)).batches(700)) out.push(...batch);
  return out;
}

describe('record blocks decompressed on two cores', () => {
  it('give the bytes one core gives: scattered pages, whole states, exports', async () => {
    const before = shared.dataset.blocks!.sharedReads;
    for (const body of AUDIENCES) {
      const audience = normalizeAudienceRequest(body);
      const total = single.count(audience);
      expect(total).toBeGreaterThan(200);
      for (const skip of [0, 17, Math.floor(total / 2), total - 100]) {
        // Blocks cached by an earlier page would not be read again: a fresh cache a page.
        shared.dataset.blocks!.clearCache();
        // 20 records of a state of ~45 blocks are scattered over it (a page of 100 is most of its blocks, read as a run).
        const a = single.recordPage(audience, skip, 20).records.map((b) => b.toString('utf8'));
        const b = shared.recordPage(audience, skip, 20).records.map((b) => b.toString('utf8'));
        expect(b).toEqual(a);
      }
      expect(await exported(shared, body)).toEqual(await exported(single, body));
    }
    expect(shared.dataset.blocks!.sharedReads).toBeGreaterThan(before);
  });

  it('find a damaged block, whichever thread reads it, and name its records', async () => {
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(path, damaged);
    const db = new Database(damaged);
    db.prepare('UPDATE record_blocks SET data = zeroblob(length(data)) WHERE block = 5').run();
    db.close();
    const engine = new EmbeddedEngine(Dataset.open(damaged), { backgroundVerify: false, scanSplitFrom: 1 });
    try {
      expect(await engine.twoCores!.whenRunning()).toBe(true);
      const all = Array.from({ length: 40 * PER }, (_, k) => k);
      expect(() => engine.dataset.recordTexts(all)).toThrow(`records ${5 * PER} to ${6 * PER - 1} fail their checksum`);
      // Scattered blocks are read on both threads: the damaged one is read again here and named.
      const scattered = Array.from({ length: 40 }, (_, k) => (2 + 3 * k) * PER + 7);
      expect(() => engine.dataset.recordTexts(scattered)).toThrow(`records ${5 * PER} to ${6 * PER - 1} fail their checksum`);
      // The read after it, without the damaged block, is whole, with the worker's help.
      engine.dataset.blocks!.workerFirst = true;
      const before = engine.dataset.blocks!.sharedReads;
      const others = scattered.map((p) => p + PER);
      expect(engine.dataset.recordTexts(others)).toEqual(single.dataset.recordTexts(others));
      expect(engine.dataset.blocks!.sharedReads).toBe(before + 1);
    } finally {
      engine.close();
    }
  });

  it('are not read by the worker from another file put at the same path', async () => {
    const moved = join(dir, 'moved.sqlite');
    const other = join(dir, 'other.sqlite');
    copyFileSync(path, moved);
    generateDataset({ rows: 12_000, seed: 22, out: other });
    const engine = new EmbeddedEngine(Dataset.open(moved), { backgroundVerify: false, scanSplitFrom: 1 });
    try {
      expect(await engine.twoCores!.whenRunning()).toBe(true);
      // Replaced before the worker ever opened it: the reader keeps its file, the worker finds another.
      renameSync(other, moved);
      const scattered = Array.from({ length: 40 }, (_, k) => (2 + 3 * k) * PER + 7);
      expect(engine.dataset.recordTexts(scattered)).toEqual(single.dataset.recordTexts(scattered));
      expect(engine.dataset.blocks!.sharedReads).toBe(0);
    } finally {
      engine.close();
    }
  });

  it('go on alone, with the same answers, when the worker is stopped', () => {
    shared.twoCores!.stop();
    shared.dataset.blocks!.clearCache();
    const before = shared.dataset.blocks!.sharedReads;
    const audience = normalizeAudienceRequest(AUDIENCES[0]!);
    const a = single.recordPage(audience, 33, 100).records.map((b) => b.toString('utf8'));
    expect(shared.recordPage(audience, 33, 100).records.map((b) => b.toString('utf8'))).toEqual(a);
    expect(shared.dataset.blocks!.sharedReads).toBe(before);
  });
});
