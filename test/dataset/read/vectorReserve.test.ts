// Memory for one-byte vectors written ahead at start-up (vectorReserve.ts): a reserved vector holds
// the very values a new one would once its chunks are read, only one-byte vectors take it, the writing
// ahead stops at its limit, and the serving start-up (EmbeddedEngine.ready) fills it. On a real
// generated file, against the same file opened without a reserve.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { VectorReserve, RESERVE_WRITE_MAX_BYTES } from '../../../src/core/dataset/read/vectorReserve';
import { generateDataset } from '../../../src/core/generate';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { FIELDS } from '../../../src/shared/fields';
import { normalizeAudienceRequest } from '../../../src/shared/audienceRequest';

const ROWS = 4000;
let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-vector-reserve-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: ROWS, seed: 33, out: path, vectorChunk: 128 });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('VectorReserve', () => {
  it('hands out zeroed one-byte vectors of the file length, written ahead over the ranges given up to the limit', () => {
    const reserve = new VectorReserve(1000);
    reserve.fill(2, [
      { first: 600, count: 300 },
      { first: 0, count: 500 },
    ]);
    expect(reserve.held()).toEqual({ vectors: 2, bytes: 1600 });
    const a = reserve.take()!;
    expect(a).toBeInstanceOf(Uint8Array);
    expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(a.length).toBe(1000);
    expect(a.every((v) => v === 0)).toBe(true);
    expect(reserve.held()).toEqual({ vectors: 1, bytes: 800 });
    expect(reserve.take()).not.toBe(a);
    expect(reserve.take()).toBeNull();
    expect(reserve.held()).toEqual({ vectors: 0, bytes: 0 });
  });

  it('written a step at a time, hands out a vector only once it is written as fill() writes it', () => {
    const ranges = [
      { first: 600, count: 300 },
      { first: 0, count: 500 },
    ];
    const stepped = new VectorReserve(1000);
    const steps: Array<{ vectors: number; bytes: number }> = [];
    while (stepped.fillStep(2, ranges, 350)) steps.push(stepped.held());
    // 800 bytes a vector in steps of at most 350: the second vector's last step ends the filling.
    expect(steps).toEqual([
      { vectors: 0, bytes: 350 },
      { vectors: 0, bytes: 700 },
      { vectors: 1, bytes: 800 },
      { vectors: 1, bytes: 1150 },
      { vectors: 1, bytes: 1500 },
    ]);
    expect(stepped.held()).toEqual({ vectors: 2, bytes: 1600 });
    expect(stepped.fillStep(2, ranges, 350)).toBe(false);
    const filled = new VectorReserve(1000);
    filled.fill(2, ranges);
    expect(stepped.held()).toEqual(filled.held());
    // One taken: the steps write a new one, and take() never hands out one half written.
    expect(stepped.take()!.every((v) => v === 0)).toBe(true);
    expect(stepped.fillStep(2, ranges, 350)).toBe(true);
    expect(stepped.take()).not.toBeNull();
    expect(stepped.take()).toBeNull();
    expect(stepped.held()).toEqual({ vectors: 0, bytes: 350 });
  });

  it('writes ahead at most an eighth of the vector budget and never more than its maximum', () => {
    const small = new VectorReserve(10_000);
    small.fill(1, [{ first: 0, count: 10_000 }], 8 * 700);
    expect(small.held().bytes).toBe(700);
    const large = new VectorReserve(RESERVE_WRITE_MAX_BYTES + 4096);
    large.fill(1, [{ first: 0, count: RESERVE_WRITE_MAX_BYTES + 4096 }], 2 ** 40);
    expect(large.held().bytes).toBe(RESERVE_WRITE_MAX_BYTES);
  });
});

describe('a dataset with its one-byte vectors reserved', () => {
  it('reads every field to the same values as without, and only one-byte vectors take the reserve', () => {
    const reserved = Dataset.open(path);
    const plain = Dataset.open(path);
    try {
      reserved.reserveVectorMemory(3);
      expect(reserved.reservedVectorMemory()).toEqual({ vectors: 3, bytes: 3 * ROWS });
      const largest = [...reserved.stateCounts()].sort((a, b) => b.count - a.count)[0]!;
      let oneByte = 0;
      let wider = 0;
      for (let i = 0; i < FIELDS.length; i++) {
        if (FIELDS[i]!.name === 'PID') continue;
        const before = reserved.reservedVectorMemory().vectors;
        const got = reserved.column(i, largest).data;
        // The whole vector, not only the state's part: what was not read is zeros in both.
        expect(got, FIELDS[i]!.name).toEqual(plain.column(i, largest).data);
        const took = before - reserved.reservedVectorMemory().vectors;
        if (got instanceof Uint8Array) oneByte++;
        else {
          wider++;
          expect(took, `${FIELDS[i]!.name} is not one byte a value`).toBe(0);
        }
      }
      expect(oneByte).toBeGreaterThan(3);
      expect(wider).toBeGreaterThan(0);
      expect(reserved.reservedVectorMemory()).toEqual({ vectors: 0, bytes: 0 });
    } finally {
      reserved.close();
      plain.close();
    }
  });

  it('is filled by the serving start-up (EmbeddedEngine.ready), after which pages read as without it', async () => {
    const options = { backgroundVerify: false, pidOrderWarmup: false, selectionCacheBytes: 0 } as const;
    const engine = new EmbeddedEngine(Dataset.open(path), options);
    const plain = new EmbeddedEngine(Dataset.open(path), options);
    try {
      expect(engine.dataset.reservedVectorMemory().vectors).toBe(0);
      await engine.ready();
      expect(engine.dataset.reservedVectorMemory()).toEqual({ vectors: 2, bytes: 2 * ROWS });
      // Pages read through the stored PID order's chunks and the record blocks, whose memory the start-up wrote ahead too.
      for (const { state, count } of engine.dataset.stateCounts().filter((s) => s.count > 0))
        for (const filters of [[], [['GENDER', ['F']]]] as Array<Array<[string, string[]]>>) {
          const audience = normalizeAudienceRequest({ state, filters });
          for (const skip of [0, Math.floor(count / 2), Math.max(0, count - 7)])
            expect(engine.recordPage(audience, skip, 10), `${state} ${skip}`).toEqual(plain.recordPage(audience, skip, 10));
        }
    } finally {
      engine.close();
      plain.close();
    }
  });
});
