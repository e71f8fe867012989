// The first use of a field in a state of many vector chunks shares their decompression with the
// scan worker (datasetVectors.ts, inflateJob.ts): every filterable field's values are exactly those
// one core loads, the worker is seen to have taken chunks, and a damaged chunk is still
// `dataset_damaged` naming it, whichever thread met it.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { generateDataset } from '../../../src/core/generate';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { openSqlite } from '../../../src/core/sqlite';
import { FIELDS, fieldIndex } from '../../../src/shared/fields';

const ROWS = 8000;
/** California then holds ~8 chunks of each vector: enough to share. */
const CHUNK = 128;
let dir: string;
let path: string;

interface SharedLoads {
  sharedLoads: number;
  workerFirst: boolean;
}
const vectorsOf = (engine: EmbeddedEngine) => (engine.dataset as unknown as { vectors: SharedLoads }).vectors;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-shared-chunks-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: ROWS, seed: 8, out: path, vectorChunk: CHUNK });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An engine whose scan worker runs for any state, and waits for the worker in each shared load. */
async function twoCoreEngine(file: string): Promise<EmbeddedEngine> {
  const engine = new EmbeddedEngine(Dataset.open(file), { backgroundVerify: false, scanSplitFrom: 1 });
  expect(await engine.twoCores!.whenRunning()).toBe(true);
  vectorsOf(engine).workerFirst = true;
  return engine;
}

describe('vector chunks of a first use decompressed on two cores', () => {
  it('load exactly the values one core loads, with the worker taking part', async () => {
    const shared = await twoCoreEngine(path);
    const single = Dataset.open(path);
    try {
      const range = single.stateRange('CA');
      expect(range.count).toBeGreaterThan(4 * CHUNK);
      for (const [i, field] of FIELDS.entries()) {
        if (field.type === 'number') continue;
        const a = single.column(i, range).data.subarray(range.first, range.first + range.count);
        const b = shared.dataset.column(i, range).data.subarray(range.first, range.first + range.count);
        expect(Array.from(b), field.name).toEqual(Array.from(a));
      }
      expect(vectorsOf(shared).sharedLoads).toBeGreaterThan(100);
    } finally {
      shared.close();
      single.close();
    }
  });

  it('find a damaged chunk and name it', async () => {
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(path, damaged);
    const probe = Dataset.open(damaged);
    const range = probe.stateRange('CA');
    probe.close();
    const chunk = Math.floor(range.first / CHUNK) + 3;
    const db = openSqlite(damaged);
    db.prepare("UPDATE vector_chunks SET data = zeroblob(length(data)) WHERE name = 'AGE' AND chunk = ?").run(chunk);
    db.close();
    const engine = await twoCoreEngine(damaged);
    try {
      expect(() => engine.dataset.column(fieldIndex('AGE'), range)).toThrow(
        new RegExp(`chunk ${chunk} of the vector of AGE fails its checksum`),
      );
      // Another field of the same state still loads, with the worker's help.
      const before = vectorsOf(engine).sharedLoads;
      engine.dataset.column(fieldIndex('GENDER'), range);
      expect(vectorsOf(engine).sharedLoads).toBe(before + 1);
    } finally {
      engine.close();
    }
  });
});
