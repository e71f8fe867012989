// A reader writes its batches' texts into buffers it shares with the thread that stages them and
// reuses each once that batch is taken in (read/batchTexts.ts). A buffer reused too early would
// hand the staging another batch's rows: so the texts a slow taker reads from readers on workers
// must be the rows a reader on this thread hands on, each once.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { overrideSettings } from '../../src/core/config';
import { BatchTexts, TextSlot } from '../../src/core/import/read/batchTexts';
import { runReaders } from '../../src/core/import/read/runReaders';
import { planShares } from '../../src/core/import/read/splitInput';
import { inspectSource } from '../../src/core/import/source/sourceFile';
import { STATE_CODES } from '../../src/shared/states';
import { pidOf, tempDir } from './helpers';

const dir = tempDir('audience-desk-batch-texts-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (slot: TextSlot): string => Buffer.from(slot.buffer, 0, slot.used).toString('utf8');

describe('a batch text slot', () => {
  it('joins texts by newlines in UTF-8, growing past its size with what it held', () => {
    const slot = new TextSlot(16);
    const texts = ['["é",1]', 'x'.repeat(40), '["日本"]'];
    for (const t of texts) slot.add(t);
    expect(text(slot)).toBe(texts.join('\n'));
    expect(slot.used).toBe(Buffer.byteLength(texts.join('\n')));
  });

  it('is not handed out again until freed, then comes back empty', () => {
    const texts = new BatchTexts(false);
    const first = texts.take();
    first.add('one');
    texts.handedOn(first);
    texts.emitted(first.buffer); // on a worker, emitting does not free it
    const second = texts.take();
    expect(second).not.toBe(first);
    texts.free(first.buffer);
    const third = texts.take();
    expect(third).toBe(first);
    expect(third.used).toBe(0);
  });
});

it('readers on workers hand a slow taker the same rows as a reader on this thread', async () => {
  const path = join(dir, 'rows.csv');
  const lines = ['PID,STATE,GENDER,CITY,AGE'];
  for (let i = 0; i < 6_000; i++)
    lines.push(`${pidOf(i)},${STATE_CODES[i % STATE_CODES.length]},${i % 2 ? 'F' : 'M'},CITY ${i % 97} É,${i % 90}`);
  writeFileSync(path, lines.join('\n') + '\n');
  const restore = overrideSettings({ importSplitBytes: 1 });
  const sources = [inspectSource(path)];
  const rowsRead = async (workers: boolean, slow: boolean): Promise<string[]> => {
    const undo = overrideSettings({ importWorkers: workers });
    const rows: string[] = [];
    try {
      const pass = await runReaders(sources, planShares(sources, 2), (batch) => {
        // A taker slower than the readers: every batch they can send waits in its queue.
        if (slow) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        if (batch.texts) rows.push(...Buffer.from(batch.texts, 0, batch.textBytes).toString('utf8').split('\n'));
      });
      expect(pass).toMatchObject({ kind: 'done', thread: workers ? 'worker' : 'this thread' });
    } finally {
      undo();
    }
    return rows.sort();
  };
  try {
    const here = await rowsRead(false, false);
    expect(here).toHaveLength(6_000);
    expect(await rowsRead(true, true)).toEqual(here);
  } finally {
    restore();
  }
});
