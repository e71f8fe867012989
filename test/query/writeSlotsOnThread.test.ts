// The record blocks' slots written ahead on a thread of their own (query/writeAhead.ts
// writeSlotsOnThread, query/slotWriterWorker.ts): all the memory the file's blocks can fill is written
// once it resolves, and what blocks already sit in slots is unchanged, however the thread met them;
// the thread waits while a request computes and stops when the engine's gate closes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RECORDS_PER_BLOCK } from '../../src/core/dataset/codec/blockCodec';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { writeSlotsOnThread } from '../../src/core/query/writeAhead';
import { VerifyGate } from '../../src/core/dataset/verify/verifyGate';

const ROWS = 2_000;
let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-slot-writer-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: ROWS, seed: 5, out: path });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether every slot the file's blocks can fill has been written ahead. */
const allWritten = (dataset: Dataset): boolean => dataset.blocks.unwrittenSlots() === null;

it('writes every slot the blocks can fill and changes none a block sits in', { timeout: 30_000 }, async () => {
  const dataset = Dataset.open(path);
  try {
    // Scattered positions (one a block, every other block): reads of many blocks decompress into
    // slots, so half the slots the thread walks hold a block's bytes, zero bytes among them.
    const positions = Array.from(
      { length: Math.floor(ROWS / (2 * RECORDS_PER_BLOCK)) },
      (_, k) => k * 2 * RECORDS_PER_BLOCK + (k % RECORDS_PER_BLOCK),
    );
    const before = dataset.recordTexts(positions);
    expect(allWritten(dataset)).toBe(false);
    expect(await writeSlotsOnThread(dataset)).toBe(true);
    expect(allWritten(dataset)).toBe(true);
    // The same blocks, now from their slots (kept): the same texts.
    expect(dataset.recordTexts(positions)).toEqual(before);
    // Nothing is left for another thread.
    expect(await writeSlotsOnThread(dataset)).toBe(false);
  } finally {
    dataset.close();
  }
});

it('writes a small file only as far as its blocks go', () => {
  const dataset = Dataset.open(path);
  try {
    const memory = dataset.blocks.unwrittenSlots()!;
    // 2,000 records in blocks of RECORDS_PER_BLOCK (16: 125 blocks), a slot of 64 KB each, of the 768.
    expect(memory.from).toBe(0);
    expect(memory.to).toBe(Math.ceil(ROWS / RECORDS_PER_BLOCK) * 64 * 1024);
    expect(memory.memory.byteLength).toBeGreaterThan(memory.to);
  } finally {
    dataset.close();
  }
});

it('waits while a request computes, and stops unwritten when the gate closes', { timeout: 30_000 }, async () => {
  const dataset = Dataset.open(path);
  try {
    const gate = new VerifyGate();
    // A request computing (the gate's count of running requests, its first word), as hold() counts one.
    const running = new Int32Array(gate.buffer, 0, 1);
    Atomics.add(running, 0, 1);
    let done: boolean | undefined;
    const writing = writeSlotsOnThread(dataset, gate).then((written) => (done = written));
    await new Promise((r) => setTimeout(r, 400));
    expect(done).toBeUndefined();
    Atomics.sub(running, 0, 1);
    Atomics.notify(running, 0);
    expect(await writing).toBe(true);
    expect(allWritten(dataset)).toBe(true);
  } finally {
    dataset.close();
  }
  const fresh = Dataset.open(path);
  try {
    const closed = new VerifyGate();
    closed.close();
    expect(await writeSlotsOnThread(fresh, closed)).toBe(false);
    expect(allWritten(fresh)).toBe(false);
  } finally {
    fresh.close();
  }
});
