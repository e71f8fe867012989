// PID ranks (pidRanks.ts): a file whose states are stored in an order of the writer's keeps each
// position's PID rank. The writer stores exactly the ranks it is given, over several chunks, and
// refuses ranks that are not each state's 0 .. count-1 once each, and a mix of ranked and unranked
// records, leaving no file; the reader inverts them into each state's PID order; a damaged or
// missing chunk, or ranks that are not a permutation, are damage the verify finds; a file in PID
// order stores none. Beside the ranks the writer stores each state's PID order, which pages read a
// chunk at a time; the verify holds it to the ranks; a file written before it gains it in place with
// `cli upgrade`, the same bytes the writer stores, or is left untouched when its ranks are damaged.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdDecompressSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { PID_ORDER_KEY, RECORD_ORDER_KEY } from '../../../src/core/dataset/format/pidRanks';
import { addStoredPidOrder } from '../../../src/core/dataset/legacy/addPidOrder';
import { ChunkLayout } from '../../../src/core/dataset/codec/vectorChunks';
import { generateRecords } from '../../../src/core/generate';
import { randomFrom } from '../../../src/core/audience/contract/listSteps';
import { fieldIndex } from '../../../src/shared/fields';
import { cli } from '../../support/cli';
import { copyWithMeta } from '../../support/datasetMeta';

const CHUNK = 256;
const [PID, STATE] = ['PID', 'STATE'].map(fieldIndex) as [number, number];

let dir: string;
let records: Array<Array<string | number>>;
/** The records in a shuffled order within each state, and each one's rank. */
let shuffled: Array<{ record: Array<string | number>; rank: number }>;
let rankedPath: string;

/** A fixed shuffle (the engine's seeded generator), so a failure can be run again. */
function shuffle<T>(items: T[], seed: number): T[] {
  const random = randomFrom(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function write(path: string, rows: Array<{ record: Array<string | number>; rank?: number }>): void {
  const writer = new DatasetWriter(path, {}, undefined, new ChunkLayout(CHUNK));
  try {
    for (const { record, rank } of rows) writer.append(record, rank);
    writer.finish();
  } catch (e) {
    writer.abort();
    throw e;
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-ranks-'));
  records = [...generateRecords(3000, 12)];
  const states = new Map<string, Array<Array<string | number>>>();
  for (const r of records) states.set(r[STATE] as string, [...(states.get(r[STATE] as string) ?? []), r]);
  shuffled = [...states.values()].flatMap((people, s) =>
    shuffle(
      people.map((record, rank) => ({ record, rank })),
      s + 1,
    ),
  );
  rankedPath = join(dir, 'ranked.sqlite');
  write(rankedPath, shuffled);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('PID ranks', () => {
  it('give each state its PID order over a file written in another order', () => {
    const dataset = Dataset.open(rankedPath);
    try {
      expect(dataset.inPidOrder).toBe(false);
      expect(dataset.meta[RECORD_ORDER_KEY]).toBe('ranked');
      const california = dataset.stateRange('CA');
      expect(california.count).toBeGreaterThan(CHUNK);
      for (const range of dataset.stateCounts()) {
        const { order, ranks } = dataset.pidOrder(range)!;
        const pids = dataset
          .valuesOf(
            Array.from(order, (offset) => range.first + offset),
            [PID],
          )
          .map((v) => v[0]);
        expect(pids).toEqual(records.filter((r) => r[STATE] === range.state).map((r) => r[PID]));
        // Each position's rank as the writer was given it.
        expect([...ranks]).toEqual(shuffled.filter((r) => r.record[STATE] === range.state).map((r) => r.rank));
      }
      expect(() => {
        for (const step of dataset.verifySteps()) void step;
      }).not.toThrow();
    } finally {
      dataset.close();
    }
  });

  it('are not stored for a file in PID order', () => {
    const path = join(dir, 'pid.sqlite');
    write(
      path,
      records.map((record) => ({ record })),
    );
    const dataset = Dataset.open(path);
    expect(dataset.inPidOrder).toBe(true);
    expect(dataset.pidOrder(dataset.stateRange('CA'))).toBeNull();
    dataset.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM pid_ranks').pluck().get()).toBe(0);
    db.close();
  });

  it('are refused, leaving no file, when a state repeats, skips or exceeds a rank, or only some records have one', () => {
    const tx = shuffled.findIndex((r) => r.record[STATE] === 'TX');
    const cases: Array<[string, Array<{ record: Array<string | number>; rank?: number }>, RegExp]> = [
      ['repeated', shuffled.map((r, k) => (k === tx + 1 ? { ...r, rank: shuffled[tx]!.rank } : r)), /were given PID rank/],
      ['past the count', shuffled.map((r, k) => (k === tx ? { ...r, rank: 10_000 } : r)), /was given PID rank 10000/],
      ['mixed', shuffled.map((r, k) => (k === tx ? { record: r.record } : r)), /with and without PID ranks/],
    ];
    for (const [name, rows, message] of cases) {
      const path = join(dir, `refused-${name}.sqlite`);
      expect(() => write(path, rows), name).toThrow(message);
      expect(existsSync(path), name).toBe(false);
    }
  });

  it('that are damaged, missing or not a permutation are damage the verify finds', () => {
    const breakWith = (name: string, sql: string): string => {
      const path = copyWithMeta(rankedPath, join(dir, `${name}.sqlite`), {});
      const db = new Database(path);
      db.exec(sql);
      db.close();
      return path;
    };
    // Chunk 0 stored again, checksum and all, with its second rank made its first's: a well-formed chunk that repeats a rank.
    const repeated = copyWithMeta(rankedPath, join(dir, 'repeated.sqlite'), {});
    const db = new Database(repeated);
    const layout = new ChunkLayout(CHUNK);
    const stored = db.prepare('SELECT data FROM pid_ranks WHERE chunk = 0').pluck().get() as Buffer;
    const values = new Uint32Array(new Uint8Array(zstdDecompressSync(stored)).buffer);
    values[1] = values[0]!;
    const again = layout.encodeValues('pid ranks', 0, values);
    db.prepare('UPDATE pid_ranks SET data = ?, crc = ? WHERE chunk = 0').run(again.data, again.crc);
    db.close();
    const damaged = [
      breakWith('flipped', 'UPDATE pid_ranks SET data = zeroblob(length(data)) WHERE chunk = 1'),
      breakWith('missing', 'DELETE FROM pid_ranks WHERE chunk = 2'),
      repeated,
    ];
    for (const path of damaged) {
      const dataset = Dataset.open(path);
      expect(() => {
        for (const step of dataset.verifySteps()) void step;
      }).toThrow(/PID ranks/i);
      expect(dataset.damage).toMatch(/PID ranks/i);
      dataset.close();
    }
  });

  it("store each state's PID order beside them, over several chunks, which the verify holds to them", () => {
    const dataset = Dataset.open(rankedPath);
    try {
      expect(dataset.meta[PID_ORDER_KEY]).toBe('stored');
      expect(dataset.storesPidOrder).toBe(true);
      for (const range of dataset.stateCounts()) {
        const stored: number[] = [];
        for (let p = range.first; p < range.first + range.count; p++) stored.push(dataset.pidOrderChunk(Math.floor(p / CHUNK))[p % CHUNK]!);
        expect(stored).toEqual([...dataset.pidOrder(range)!.order]);
      }
    } finally {
      dataset.close();
    }
    // Chunk 1 of the order stored again, checksum and all, with two offsets swapped: well formed, but not the ranks' order.
    const swapped = copyWithMeta(rankedPath, join(dir, 'swapped-order.sqlite'), {});
    const db = new Database(swapped);
    const values = new Uint32Array(
      new Uint8Array(zstdDecompressSync(db.prepare('SELECT data FROM pid_order WHERE chunk = 1').pluck().get() as Buffer)).buffer,
    );
    [values[3], values[4]] = [values[4]!, values[3]!];
    const again = new ChunkLayout(CHUNK).encodeValues('pid order', 1, values);
    db.prepare('UPDATE pid_order SET data = ?, crc = ? WHERE chunk = 1').run(again.data, again.crc);
    db.close();
    const damaged = Dataset.open(swapped);
    expect(() => {
      for (const step of damaged.verifySteps()) void step;
    }).toThrow(/stored PID order differs/);
    damaged.close();
  });

  it('build an order in steps of a chunk read or a slice inverted, the same order as in one call', () => {
    const dataset = Dataset.open(rankedPath);
    try {
      for (const range of dataset.stateCounts()) {
        const steps = dataset.pidOrderSteps(range);
        let yielded = 0;
        let step = steps.next();
        for (; !step.done; step = steps.next()) yielded++;
        const chunks = Math.floor((range.first + range.count - 1) / CHUNK) - Math.floor(range.first / CHUNK) + 1;
        // A chunk of ranks a step, then one slice of the inversion (every state here is under a slice).
        expect(yielded, range.state).toBe(chunks + 1);
        const built = dataset.pidOrder(range)!;
        expect([...step.value!.order], range.state).toEqual([...built.order]);
        expect([...step.value!.ranks], range.state).toEqual([...built.ranks]);
      }
    } finally {
      dataset.close();
    }
  });

  it('refuse a file naming a stored order this version does not know', () => {
    const path = copyWithMeta(rankedPath, join(dir, 'unknown-order.sqlite'), { [PID_ORDER_KEY]: 'zigzag' });
    expect(() => Dataset.open(path)).toThrow(/PID order this version does not know \(zigzag\)/);
  });

  it("are given their stored order in place by cli upgrade when written before it, the writer's bytes; damaged ranks leave the file untouched", async () => {
    const writtenBefore = (name: string, sql = ''): string => {
      const path = copyWithMeta(rankedPath, join(dir, `${name}.sqlite`), { [PID_ORDER_KEY]: null });
      const db = new Database(path);
      db.exec(`DROP TABLE pid_order; ${sql}`);
      db.close();
      return path;
    };
    const path = writtenBefore('before');
    const plain = Dataset.open(path);
    expect(plain.storesPidOrder).toBe(false);
    plain.close();
    const upgraded = await cli(['upgrade', '--db', path]);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(upgraded.stdout).toMatch(/stored PID order added/);
    const rows = (file: string) => {
      const db = new Database(file, { readonly: true });
      const all = db.prepare('SELECT chunk, crc, data FROM pid_order ORDER BY chunk').all();
      const meta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
      const result = { all, order: meta.get(PID_ORDER_KEY), checksum: meta.get('checksum') };
      db.close();
      return result;
    };
    expect(rows(path)).toEqual(rows(rankedPath));
    const dataset = Dataset.open(path);
    expect(() => {
      for (const step of dataset.verifySteps()) void step;
    }).not.toThrow();
    dataset.close();
    expect((await cli(['upgrade', '--db', path])).stdout).toMatch(/^current: /);

    const broken = writtenBefore('before-broken', 'UPDATE pid_ranks SET data = zeroblob(length(data)) WHERE chunk = 1');
    const digest = () => createHash('sha256').update(readFileSync(broken)).digest('hex');
    const untouched = digest();
    expect(() => addStoredPidOrder(broken)).toThrow(/is damaged \(chunk 1 of the vector of pid ranks/);
    expect(digest()).toBe(untouched);
    expect(existsSync(`${broken}-journal`)).toBe(false);
  });
});
