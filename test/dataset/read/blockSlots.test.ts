// Decompressed record blocks live in reused slots of shared memory (blockSlots.ts, blockRecords.ts).
// With a handful of slots, reads far larger than them (scattered, in order, repeated) give exactly
// the records a plain dataset gives, and what a read returned stays what it was after the slots it
// came from hold other blocks.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDS_PER_BLOCK } from '../../../src/core/dataset/codec/blockCodec';
import { BlockRecords } from '../../../src/core/dataset/read/blockRecords';
import { BlockSlots, SLOT_BYTES } from '../../../src/core/dataset/read/blockSlots';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { generateDataset } from '../../../src/core/generate';
import { datasetIdentity } from '../../../src/core/dataset/read/pieceFetch';
import { openSqlite, type Db } from '../../../src/core/sqlite';
import { randomFrom } from '../../../src/core/audience/contract/listSteps';

/** Records a block of the files written here. */
const PER = RECORDS_PER_BLOCK;
const ROWS = 6_000;
let dir: string;
let plain: Dataset;
let db: Db;
/** Six slots: a read takes three blocks at a time. */
let few: BlockRecords;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-slots-'));
  const path = join(dir, 'd.sqlite');
  generateDataset({ rows: ROWS, seed: 5, out: path });
  plain = Dataset.open(path);
  db = openSqlite(path, { readonly: true });
  few = new BlockRecords(db, path, ROWS, PER, datasetIdentity(plain.meta), 6);
}, 60_000);
afterAll(() => {
  few?.close();
  db?.close();
  plain?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('record blocks in a few reused slots', () => {
  it('read scattered, in order and again, give the records a plain dataset gives', () => {
    const random = randomFrom(3);
    const scattered = Array.from({ length: 300 }, () => Math.floor(random() * ROWS));
    const inOrder = Array.from({ length: 700 }, (_, k) => 1000 + k);
    for (const positions of [scattered, inOrder, scattered, [5, 5, 4000, 5, 4001, 31, 32]]) {
      expect(few.texts(positions)).toEqual(plain.recordTexts(positions));
      expect(few.starts(positions)).toEqual(plain.blocks!.starts(positions));
    }
  });

  it("cut each block right in a slot whose last block was longer, shorter or the file's last, shorter one", () => {
    const rows = 40 * PER + 5;
    const path = join(dir, 'partial.sqlite');
    generateDataset({ rows, seed: 6, out: path });
    const whole = Dataset.open(path);
    const ownDb = openSqlite(path, { readonly: true });
    // Two slots: each read takes one block, and the two slots take every block in turn.
    const two = new BlockRecords(ownDb, path, rows, PER, datasetIdentity(whole.meta), 2);
    try {
      const last = rows - 1;
      const random = randomFrom(4);
      for (let k = 0; k < 200; k++) {
        const positions = [Math.floor(random() * rows), last - (k % 5), Math.floor(random() * rows)];
        expect(two.texts(positions)).toEqual(whole.recordTexts(positions));
      }
    } finally {
      two.close();
      ownDb.close();
      whole.close();
    }
  });

  it('return records that stay as they were once their slots hold other blocks', () => {
    const first = Array.from({ length: 20 }, (_, k) => k * 250);
    const bytes = few.bytes(first);
    const copies = bytes.map((b) => Buffer.from(b).toString('utf8'));
    // Every slot now holds other blocks, several times over.
    few.texts(Array.from({ length: 2000 }, (_, k) => 3000 + k));
    expect(bytes.map((b) => Buffer.from(b).toString('utf8'))).toEqual(copies);
    expect(copies).toEqual(plain.recordTexts(first));
  });

  it('keep the blocks they hold when the start-up writes their memory ahead', () => {
    const held = [10, 40, 70];
    expect(few.texts(held)).toEqual(plain.recordTexts(held));
    // Every slot written ahead: the three blocks read above are still cached in theirs and read from there.
    few.writeAheadSlots(6);
    expect(few.texts(held)).toEqual(plain.recordTexts(held));
    expect(few.texts([...held, 3000, 5000])).toEqual(plain.recordTexts([...held, 3000, 5000]));
    const slots = new BlockSlots(3);
    const slot = slots.take();
    expect(slot).toBe(0);
    slots.view(slot, 4).set([1, 2, 3, 4]);
    slots.writeAhead(3);
    expect([...slots.view(slot, 4)]).toEqual([1, 2, 3, 4]);
    // Free slots are taken lowest first: the ones written ahead are the ones the next reads get.
    expect([slots.take(), slots.take(), slots.take()]).toEqual([1, 2, -1]);
  });

  it('after a damaged block, go on giving every record right', () => {
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(join(dir, 'd.sqlite'), damaged);
    const writable = openSqlite(damaged);
    writable.prepare('UPDATE record_blocks SET data = zeroblob(length(data)) WHERE block = 40').run();
    writable.close();
    const db2 = openSqlite(damaged, { readonly: true });
    const blocks = new BlockRecords(db2, damaged, ROWS, PER, datasetIdentity(plain.meta), 6);
    try {
      for (let round = 0; round < 5; round++) {
        // Blocks 38 to 40 in one read: the first two decode, then the third fails its checksum.
        expect(() => blocks.texts([38 * PER, 39 * PER, 40 * PER + 1])).toThrow(
          `records ${40 * PER} to ${41 * PER - 1} fail their checksum`,
        );
        const positions = Array.from({ length: 400 }, (_, k) => (k * 97 + round * 13) % (38 * PER));
        expect(blocks.texts(positions)).toEqual(plain.recordTexts(positions));
      }
    } finally {
      blocks.close();
      db2.close();
    }
  });
});

describe('block slots', () => {
  it('free a slot given back twice once', () => {
    const slots = new BlockSlots(2);
    const a = slots.take();
    slots.give(a);
    slots.give(a);
    const taken = [slots.take(), slots.take(), slots.take()];
    expect(taken.slice(0, 2).sort()).toEqual([0, 1]);
    expect(taken[2]).toBe(-1);
  });

  it('are written ahead a few at a time, each once, never one that is taken', () => {
    const slots = new BlockSlots(5);
    const memory = new Uint8Array(slots.shared);
    const held = slots.take();
    slots.view(held, 4).set([1, 2, 3, 4]);
    // What an evicted block left in the free slots: the write-ahead is seen writing over it.
    memory.fill(7, SLOT_BYTES);
    const firstByte = (slot: number): number => memory[slot * SLOT_BYTES]!;
    expect(slots.writeAheadMore(2)).toBe(true);
    expect([...slots.view(held, 4)]).toEqual([1, 2, 3, 4]);
    expect([1, 2, 3, 4].map(firstByte)).toEqual([0, 7, 7, 7]);
    // A slot taken and written after the step that passed it is not written again.
    const next = slots.take();
    expect(next).toBe(1);
    slots.view(next, 1).set([9]);
    expect(slots.writeAheadMore(2)).toBe(true);
    expect(slots.writeAheadMore(2)).toBe(false);
    expect([1, 2, 3, 4].map(firstByte)).toEqual([9, 0, 0, 0]);
    expect(memory[5 * SLOT_BYTES - 1]).toBe(0);
    expect(slots.writeAheadMore(2)).toBe(false);
    // New memory (after a read whose worker did not finish) is written ahead again from its start.
    slots.reset();
    expect(slots.writeAheadMore(0)).toBe(true);
  });
});
