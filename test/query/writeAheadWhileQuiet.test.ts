// The record blocks' memory the serving start-up leaves unwritten is written while requests are
// quiet (query/writeAhead.ts): never while requests keep coming, all of it once they pause, then the
// vector reserve back to two after a first use took one, and nothing after the dataset closes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { VerifyGate } from '../../src/core/dataset/verify/verifyGate';
import { generateDataset } from '../../src/core/generate';
import { writeAheadWhileQuiet } from '../../src/core/query/writeAhead';
import { FIELDS } from '../../src/shared/fields';

let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-write-ahead-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: 2_000, seed: 3, out: path });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Whether every record block's slot has been written ahead. */
const allWritten = (dataset: Dataset): boolean => dataset.blocks.unwrittenSlots() === null;

it("writes the blocks' memory ahead only once requests pause, and all of it then", { timeout: 30_000 }, async () => {
  const dataset = Dataset.open(path);
  const gate = new VerifyGate();
  try {
    // A request ending every 5 ms: never 40 ms of quiet.
    const requests = setInterval(() => gate.hold(() => dataset.recordTexts([0])), 5);
    writeAheadWhileQuiet(dataset, gate, 40);
    // Long enough for a writer that did not wait for quiet to write every slot (96 steps, one every 20 ms).
    await sleep(3_000);
    clearInterval(requests);
    expect(allWritten(dataset)).toBe(false);
    // 768 slots at 8 a step, a step every 20 ms: about 2 s once quiet.
    for (let waited = 0; !allWritten(dataset) && waited < 20_000; waited += 50) await sleep(50);
    expect(allWritten(dataset)).toBe(true);
    expect(dataset.recordTexts([0, 1_999])).toHaveLength(2);
  } finally {
    dataset.close();
  }
});

it('writes the vector reserve back to two while quiet after a first use took one', { timeout: 30_000 }, async () => {
  const dataset = Dataset.open(path);
  const gate = new VerifyGate();
  try {
    dataset.reserveVectorMemory(2);
    writeAheadWhileQuiet(dataset, gate, 0);
    for (let waited = 0; !allWritten(dataset) && waited < 20_000; waited += 50) await sleep(50);
    const largest = [...dataset.stateCounts()].sort((a, b) => b.count - a.count)[0]!;
    // GENDER is one byte a value: its first use takes a reserved vector.
    expect(
      dataset.column(
        FIELDS.findIndex((f) => f.name === 'GENDER'),
        largest,
      ).data,
    ).toBeInstanceOf(Uint8Array);
    expect(dataset.reservedVectorMemory().vectors).toBe(1);
    for (let waited = 0; dataset.reservedVectorMemory().vectors < 2 && waited < 5_000; waited += 50) await sleep(50);
    expect(dataset.reservedVectorMemory()).toEqual({ vectors: 2, bytes: 2 * 2_000 });
  } finally {
    dataset.close();
  }
});

it('stops when the dataset closes', { timeout: 10_000 }, async () => {
  const dataset = Dataset.open(path);
  const gate = new VerifyGate();
  writeAheadWhileQuiet(dataset, gate, 0);
  await sleep(60);
  expect(allWritten(dataset)).toBe(false);
  dataset.close();
  // Long enough for a writer still running to write every slot (96 steps, one every 20 ms).
  await sleep(3_000);
  expect(allWritten(dataset)).toBe(false);
});
