// Every worker an import or the generator starts ends itself when it is stopped: after a whole
// import, after a cancel while reading and while writing, and when a taker of generated records
// stops early. A terminated worker exits with 1, and terminating one at the wrong moment aborts the
// process (src/core/workers/stopWorker.ts), so each must exit with 0.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { workerChunks } from '../../src/core/generate/workerRecords';
import { importFiles } from '../../src/core/import/importFiles';
import { STATE_CODES } from '../../src/shared/states';
import { pidOf, tempDir } from './helpers';

/** The workers started since the last look, by name, with their exit codes once they have ended. */
const started: Array<{ name: string; code?: number; exited: Promise<void> }> = [];

vi.mock('../../src/core/workers/startWorker', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/workers/startWorker')>();
  return {
    startWorker: (...args: Parameters<typeof real.startWorker>): Worker | undefined => {
      const worker = real.startWorker(...args);
      if (worker) {
        const entry: { name: string; code?: number; exited: Promise<void> } = { name: args[0], exited: Promise.resolve() };
        entry.exited = new Promise((resolve) =>
          worker.once('exit', (code) => {
            entry.code = code;
            resolve();
          }),
        );
        started.push(entry);
      }
      return worker;
    },
  };
});

/** The workers started since the last call, each once it has ended: name and exit code. */
async function endedWorkers(): Promise<Array<[string, number | undefined]>> {
  const taken = started.splice(0);
  await Promise.all(taken.map((w) => w.exited));
  return taken.map((w) => [w.name, w.code]);
}

let dir: string;
let csv: string;
beforeAll(() => {
  dir = tempDir('audience-desk-workers-asked-');
  csv = join(dir, 'narrow-30k.csv');
  const lines = ['PID,STATE,GENDER,CITY,AGE'];
  for (let i = 0; i < 30_000; i++)
    lines.push(`${pidOf(i * 7 + 1)},${STATE_CODES[i % STATE_CODES.length]},${i % 2 ? 'F' : 'M'},CITY ${i % 97},${i % 80}`);
  writeFileSync(csv, lines.join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('workers end themselves when stopped', () => {
  it('after a whole import', async () => {
    await importFiles({ files: [csv], out: join(dir, 'whole.sqlite') });
    const ended = await endedWorkers();
    expect(new Set(ended.map(([name]) => name))).toEqual(new Set(['readWorker', 'orderWorker', 'blockWorker']));
    expect(ended.filter(([, code]) => code !== 0)).toEqual([]);
  });

  it.each([
    ['reading', 'readWorker'],
    ['writing', 'orderWorker'],
  ] as const)('after a cancel while %s', async (phase, running) => {
    const controller = new AbortController();
    const attempt = importFiles({
      files: [csv],
      out: join(dir, `cancel-${phase}.sqlite`),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === phase) controller.abort();
      },
    });
    await expect(attempt).rejects.toThrow(/cancelled/);
    const ended = await endedWorkers();
    expect(ended.map(([name]) => name)).toContain(running);
    expect(ended.filter(([, code]) => code !== 0)).toEqual([]);
  });

  it('when the taker of generated records stops early', async () => {
    const batches = workerChunks(5_000, 3, 1 << 18)!;
    expect(batches.next().done).toBe(false);
    batches.return(undefined);
    expect(await endedWorkers()).toEqual([['generateWorker', 0]]);
  });
});
