// BackgroundSync flushes a file being written on libuv's thread pool and lets its descriptor go only
// once no flush is running, never before the writer's own handle is closed; the dataset writer
// releases it on finish and on abort, so no descriptor of a dataset outlives its writer.
import { existsSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BackgroundSync } from '../../../src/core/fs/backgroundSync';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { generateStored } from '../../../src/core/generate/generateRecords';
import { tempDir } from '../../import/helpers';

const dir = tempDir('audience-desk-background-sync-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where this process's descriptors can be listed (Linux): elsewhere only what BackgroundSync says of itself is checked. */
const listable = existsSync('/proc/self/fd');

/** This process's descriptors of `path` (Linux: /proc/self/fd), a deleted file's included; 0 where they cannot be listed. */
function descriptorsOf(path: string): number {
  if (!listable) return 0;
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target === path || target === `${path} (deleted)`) n++;
    } catch {
      // the descriptor readdir itself used, closed by now
    }
  }
  return n;
}

/** Waits (up to 5 s) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (const started = Date.now(); !done();) {
    if (Date.now() - started > 5_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

it('keeps its descriptor while a flush runs after release, and closes it when the flush ends', async () => {
  const path = join(dir, 'flushed.bin');
  writeFileSync(path, Buffer.alloc(8 * 2 ** 20, 1));
  const sync = new BackgroundSync(path);
  if (listable) expect(descriptorsOf(path)).toBe(1);
  sync.flush();
  sync.flush(); // one flush at a time: this one is not started
  sync.release();
  // The flush's callback can only run on a later turn of the event loop: still open now.
  expect(sync.open).toBe(true);
  if (listable) expect(descriptorsOf(path)).toBe(1);
  await until(() => !sync.open);
  await until(() => descriptorsOf(path) === 0);
  sync.flush(); // after release: nothing, and no error
  expect(sync.open).toBe(false);
});

it('closes at once when released with no flush running', async () => {
  const path = join(dir, 'idle.bin');
  writeFileSync(path, 'x');
  const sync = new BackgroundSync(path);
  sync.release();
  expect(sync.open).toBe(false);
  await until(() => descriptorsOf(path) === 0);
});

it.runIf(listable).each(['finish', 'abort'] as const)('leaves no descriptor of the dataset open after %s (Linux)', async (end) => {
  const target = join(dir, `${end}.sqlite`);
  const writer = new DatasetWriter(target);
  const temp = `${target}.building-${process.pid}`;
  for (const { record, rank } of generateStored(300, 7)) writer.append(record, rank);
  expect(descriptorsOf(temp)).toBeGreaterThanOrEqual(2); // SQLite's and the background sync's
  if (end === 'finish') writer.finish();
  else writer.abort();
  await until(() => descriptorsOf(temp) === 0 && descriptorsOf(target) === 0);
});
