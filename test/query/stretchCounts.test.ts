// A walk through a stored PID order counting many stretches at once on two cores (stretchCountJob.ts,
// stretchCounter.ts, the scan worker): each stretch's matches are counted once, whoever counts
// which chunk; a chunk the worker failed is counted again by the calling thread, a late worker
// leaves the walk to count alone, damage the calling thread meets is reported. Through a real
// engine on a real file (small chunks and stretches, so a small state has many), pages at every
// depth are exactly those of a walk on one core, with the worker seen to have counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomFrom } from '../../src/core/audience/contract/listSteps';
import { Dataset } from '../../src/core/dataset/read/dataset';
import type { PieceSource } from '../../src/core/dataset/read/pieceFetch';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { claimStretchChunks, finishStretchCounts, keptSlice, stretchCountJob, workerTookPart } from '../../src/core/query/stretchCountJob';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';

const CHUNK = 16;
const SOURCE: PieceSource = { kind: 'order', path: 'unused', identity: 'unused', header: null as never, chunkSize: CHUNK };

/** Two states laid out as the writer lays them, and a random half of the second's people marked in shared memory. */
function layout(seed: number) {
  const random = randomFrom(seed);
  const first = 21;
  const count = 203;
  const order = Uint32Array.from({ length: count }, (_, k) => k);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const positions = new Uint32Array(first + count);
  positions.set(order, first);
  const marks = new Uint8Array(new SharedArrayBuffer((count + 7) >>> 3));
  for (let k = 0; k < count; k++) if (random() < 0.5) marks[k >>> 3]! |= 1 << (k & 7);
  const chunk = (c: number) => positions.slice(c * CHUNK, (c + 1) * CHUNK);
  /** Matches among ranks [j * stretch, (j + 1) * stretch), counted one by one. */
  const expected = (stretch: number, from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => {
      let n = 0;
      for (let r = (from + i) * stretch; r < Math.min(count, (from + i + 1) * stretch); r++)
        n += (marks[order[r]! >>> 3]! >>> (order[r]! & 7)) & 1;
      return n;
    });
  return { where: { first, count, chunkSize: CHUNK }, marks, chunk, expected, order };
}

describe('counting stretches of a stored order at once', () => {
  it('counts each stretch once, a chunk the worker failed counted again by the calling thread', () => {
    const { where, marks, chunk, expected } = layout(5);
    for (const [stretch, from, to] of [
      [5, 0, 41],
      [5, 3, 17],
      [16, 1, 13],
      [37, 0, 6],
      [64, 1, 4],
    ] as const) {
      const job = stretchCountJob({ source: SOURCE }, where, marks, stretch, from, to);
      // The "worker" counts its first chunk, then fails every one it claims after it.
      let calls = 0;
      claimStretchChunks(
        job,
        (c) => {
          if (calls++ > 0) throw new Error('not readable here');
          return chunk(c);
        },
        true,
      );
      expect(workerTookPart(job)).toBe(true);
      const counts = finishStretchCounts(job, chunk, 1000);
      expect([...counts!], `${stretch} ${from}..${to}`).toEqual(expected(stretch, from, to));
    }
  });

  it('counts from the whole order the engine keeps, a stretch of it at a time', () => {
    const { marks, expected, order } = layout(7);
    const kept = new Uint32Array(new SharedArrayBuffer(order.byteLength));
    kept.set(order);
    for (const [stretch, from, to] of [
      [5, 0, 41],
      [16, 2, 13],
      [64, 0, 4],
    ] as const) {
      const job = stretchCountJob({ kept }, { first: 0, count: kept.length, chunkSize: stretch }, marks, stretch, from, to);
      claimStretchChunks(job, (c) => keptSlice(job, c), true);
      expect([...finishStretchCounts(job, (c) => keptSlice(job, c), 1000)!], `${stretch} ${from}..${to}`).toEqual(
        expected(stretch, from, to),
      );
    }
  });

  it('gives the counts up when the worker does not finish a chunk it claimed, and reports damage the calling thread meets', () => {
    const { where, marks, chunk } = layout(6);
    const late = stretchCountJob({ source: SOURCE }, where, marks, 16, 0, 12);
    // Claimed and never finished: a worker still busy, which may add to the counts later.
    Atomics.add(late.control, 0, 1);
    expect(finishStretchCounts(late, chunk, 30)).toBeNull();

    const damaged = stretchCountJob({ source: SOURCE }, where, marks, 16, 0, 12);
    const broken = (c: number) => {
      if (c === 3) throw new Error('chunk 3 of its stored PID order fails its checksum');
      return chunk(c);
    };
    claimStretchChunks(damaged, broken, false);
    expect(() => finishStretchCounts(damaged, broken, 1000)).toThrow(/chunk 3 of its stored PID order/);
  });
});

describe('pages at depth with stretches counted on two cores', () => {
  let dir: string;
  let counted: EmbeddedEngine;
  let alone: EmbeddedEngine;
  // Bits kept from a filter's second ask, so marks come both from split scans and from bits.
  const options = {
    backgroundVerify: false,
    selectionCacheBytes: 0,
    walkStretch: 128,
    pidOrderWarmup: false as const,
    filterBits: { fromPeople: 1 },
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audience-desk-stretches-'));
    const path = join(dir, 'd.sqlite');
    // Chunks of 512 positions: California's ~3,600 people span several, and ~28 stretches of 128.
    generateDataset({ rows: 30_000, seed: 23, out: path, vectorChunk: 512 });
    counted = new EmbeddedEngine(Dataset.open(path), { ...options, scanSplitFrom: 1 });
    alone = new EmbeddedEngine(Dataset.open(path), { ...options, scanSplitFrom: 0 });
    expect(await counted.twoCores!.whenRunning()).toBe(true);
    // This thread would otherwise claim every chunk before the worker wakes.
    counted.paging.counter!.workerFirst = true;
  }, 120_000);
  afterAll(() => {
    counted?.close();
    alone?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the pages a walk on one core gives, at every depth, with the worker counting beside', () => {
    const random = randomFrom(31);
    let deep = 0;
    for (const state of ['CA', 'TX', 'NY'])
      for (const filters of [
        [['GENDER', ['F']]],
        [
          ['GENDER', ['M']],
          ['MARRIEDCD', ['M']],
        ],
        [['AGE', ['18-40']]],
      ]) {
        const audience = normalizeAudienceRequest({ state, filters });
        const total = alone.count(audience);
        expect(total).toBeGreaterThan(300);
        const depths = [
          0,
          1,
          Math.floor(total / 4),
          Math.floor(total / 2),
          total - 30,
          total - 1,
          ...[0, 0, 0].map(() => Math.floor(random() * total)),
        ];
        for (const skip of depths) {
          // No selection cache: each page walks a fresh selection from its first stretch.
          expect(counted.previewPage(audience, skip, 25), `${state} ${JSON.stringify(filters)} ${skip}`).toEqual(
            alone.previewPage(audience, skip, 25),
          );
          if (skip >= total / 4) deep++;
        }
      }
    expect(deep).toBeGreaterThan(30);
    // Each page that far went through the worker: stretches before it were counted on two cores.
    expect(counted.paging.counter!.sharedCounts).toBeGreaterThanOrEqual(deep);
    expect(alone.paging.counter).toBeNull();
  });

  it('counts from the whole orders the warm-up kept, in shared memory, with the same pages', async () => {
    let warmed!: EmbeddedEngine;
    await new Promise<void>((done) => {
      warmed = new EmbeddedEngine(Dataset.open(counted.dataset.path), {
        ...options,
        scanSplitFrom: 1,
        pidOrderWarmup: { from: 0, delayMs: 0, onFinished: done },
      });
    });
    try {
      expect(await warmed.twoCores!.whenRunning()).toBe(true);
      warmed.paging.counter!.workerFirst = true;
      const reads = vi.spyOn(warmed.dataset, 'pidOrderChunk');
      let deep = 0;
      for (const state of ['CA', 'TX'])
        for (const filters of [[['GENDER', ['F']]], [['AGE', ['18-40']]]]) {
          const audience = normalizeAudienceRequest({ state, filters });
          const total = alone.count(audience);
          for (const skip of [Math.floor(total / 3), total - 30, Math.floor(total / 2)]) {
            expect(warmed.previewPage(audience, skip, 25), `${state} ${JSON.stringify(filters)} ${skip}`).toEqual(
              alone.previewPage(audience, skip, 25),
            );
            deep++;
          }
        }
      expect(warmed.paging.counter!.sharedCounts).toBeGreaterThanOrEqual(deep);
      // Counted from memory: not a chunk of the stored order read.
      expect(reads).not.toHaveBeenCalled();
    } finally {
      warmed.close();
    }
  });
});
