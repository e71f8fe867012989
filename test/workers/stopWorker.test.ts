// Workers are stopped by asking them (src/core/workers/stopWorker.ts): a worker that builds zstd
// streams all the time, stopped at many moments, ends itself every time and the process lives on;
// one that never listens is terminated once its patience runs out.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startWorker } from '../../src/core/workers/startWorker';
import { stopWorker } from '../../src/core/workers/stopWorker';

const exitCode = (worker: Worker): Promise<number> => new Promise((resolve) => worker.once('exit', resolve));

describe('stopWorker', () => {
  it('ends a worker busy building zstd streams by asking it, at any moment, without aborting the process', async () => {
    const codes: number[] = [];
    for (let round = 0; round < 30; round++) {
      const worker = startWorker('zstdChurnWorker', import.meta.url)!;
      expect(worker).toBeDefined();
      const exited = exitCode(worker);
      await new Promise((resolve) => worker.once('message', resolve));
      // Stopped at a spread of moments into its churn.
      await new Promise((resolve) => setTimeout(resolve, round % 4));
      await stopWorker(worker);
      codes.push(await exited);
    }
    // 0: each ended itself (a terminated worker exits with 1).
    expect(codes).toEqual(codes.map(() => 0));
  });

  it('terminates a worker that does not answer once its patience is spent', async () => {
    const worker = new Worker('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);', { eval: true });
    const exited = exitCode(worker);
    await new Promise((resolve) => worker.once('online', resolve));
    const started = Date.now();
    await stopWorker(worker, undefined, 300);
    expect(await exited).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('returns at once for a worker that has ended already', async () => {
    const worker = new Worker('0', { eval: true });
    await exitCode(worker);
    let asked = false;
    await stopWorker(worker, () => (asked = true));
    expect(asked).toBe(false);
  });
});
