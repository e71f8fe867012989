// Rows in (STATE, PID) order and rows in any other order go the same way, through the staging file
// (the file's order is by household, docs/import.md), and give the same dataset; a PID seen twice
// keeps the row read last. Also: the worker thread and this thread read alike, malformed quotes,
// UTF-8 split across read chunks, damaged gzip.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideSettings } from '../../src/core/config';
import { importFiles, type ImportProgress, type ImportSummary } from '../../src/core/import/importFiles';
import { MALFORMED_QUOTE } from '../../src/core/import/source/rowParser';
import { runReaders as readBatches } from '../../src/core/import/read/runReaders';
import { wholeFiles } from '../../src/core/import/read/splitInput';
import { inspectSource } from '../../src/core/import/source/sourceFile';
import { STATE_CODES } from '../../src/shared/states';
import { fixture, integrity, pidOf, readRecords, readRejects, recordsByPid, tempDir, ALL_FIXTURES } from './helpers';

const HEADER = 'PID,STATE,GENDER,CITY,AGE';

let dir: string;
beforeAll(() => {
  dir = tempDir('audience-desk-import-paths-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 3,000 rows in (STATE, PID) order: 60 a state for the first 50 states. */
function sortedRows(): string[] {
  const rows: string[] = [];
  for (let s = 0; s < 50; s++)
    for (let i = 0; i < 60; i++)
      rows.push(`${pidOf(1000 * s + 7 * i + 1)},${STATE_CODES[s]},${i % 2 ? 'F' : 'M'},City ${i % 13},${(s + i) % 90}`);
  return rows;
}

function shuffled<T>(items: T[]): T[] {
  const out = items.slice();
  let x = 99;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function file(name: string, rows: string[], newline = '\n'): string {
  const path = join(dir, name);
  writeFileSync(path, [HEADER, ...rows].join(newline) + newline);
  return path;
}

async function run(files: string[], name: string): Promise<{ summary: ImportSummary; progress: ImportProgress[] }> {
  const progress: ImportProgress[] = [];
  const summary = await importFiles({ files, out: join(dir, `${name}.sqlite`), onProgress: (p) => progress.push(p) });
  return { summary, progress };
}

const comparable = (s: ImportSummary): object => ({
  ...s,
  seconds: 0,
  out: '',
  rejectsPath: '',
  files: s.files.map((f) => ({ ...f, path: '' })),
});
const writtenWhileReading = (progress: ImportProgress[]): boolean => progress.some((p) => p.phase === 'reading' && p.rowsWritten > 0);

describe('rows in (STATE, PID) order and rows in any order', () => {
  let sorted: Awaited<ReturnType<typeof run>>;
  let staged: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    sorted = await run([file('sorted.csv', sortedRows())], 'sorted');
    staged = await run([file('shuffled.csv', shuffled(sortedRows()))], 'shuffled');
  });

  it('stages sorted rows as it stages shuffled ones, writing nothing while reading; both give the same dataset', () => {
    expect(writtenWhileReading(sorted.progress)).toBe(false);
    expect(writtenWhileReading(staged.progress)).toBe(false);
    expect(sorted.summary).toMatchObject({ read: 3000, imported: 3000, rejected: 0, replaced: 0, records: 3000 });
    expect(comparable(staged.summary)).toEqual(comparable(sorted.summary));
    expect(integrity(sorted.summary.out)).toEqual({ check: 'ok', records: 3000 });
    expect(readRecords(sorted.summary.out)).toEqual(readRecords(staged.summary.out));
  });

  it('counts and rejects every row once when the order breaks late', async () => {
    const rows = sortedRows();
    rows.splice(10, 0, `${pidOf(5)},ZZ,F,Bad State,1`, `${pidOf(6)},AK,X,Bad Gender,1`);
    rows.push(`${pidOf(3)},AK,F,Late,40`); // out of order: AK after every other state
    const late = await run([file('late.csv', rows)], 'late');
    const reference = await run([file('late-shuffled.csv', shuffled(rows))], 'late-shuffled');
    expect(late.summary).toMatchObject({ read: 3003, imported: 3001, rejected: 2, replaced: 0, records: 3001 });
    expect(readRecords(late.summary.out)).toEqual(readRecords(reference.summary.out));
    expect(readRejects(late.summary.rejectsPath).map((r) => [r.line, r.field])).toEqual([
      ['12', 'STATE'],
      ['13', 'GENDER'],
    ]);
    const reading = late.progress.filter((p) => p.phase === 'reading').map((p) => p.rowsRead);
    expect(reading).toEqual([...reading].sort((a, b) => a - b));
    expect(reading.at(-1)).toBe(3003);
  });

  it('lets the row read last win when sorted rows repeat a PID, next to it or under a later state', async () => {
    // In the first batch and well after it.
    for (const at of [1, 2000]) {
      const rows = sortedRows();
      const pid = rows[at - 1]!.slice(0, 32);
      const state = rows[at - 1]!.slice(33, 35);
      rows.splice(at, 0, `${pid},${state},F,Second Copy,11`); // same (STATE, PID) as the row before it
      rows.push(`${pid},WY,M,Moved,12`); // the same PID again, under the last state
      const { summary: s } = await run([file(`dups-${at}.csv`, rows)], `dups-${at}`);
      expect(s).toMatchObject({ read: 3002, imported: 3002, replaced: 2, records: 3000 });
      expect(recordsByPid(s.out).get(pid)).toMatchObject({ STATE: 'WY', CITY: 'MOVED', AGE: 12 });
      expect(readRecords(s.out)).toHaveLength(3000);
    }
  });

  it('keeps the later row of a PID of sorted rows that comes back only under a later state', async () => {
    const rows = sortedRows();
    const pid = rows[10]!.slice(0, 32);
    rows.push(`${pid},WY,M,Moved,12`); // still in (STATE, PID) order
    const { summary: s } = await run([file('moved.csv', rows)], 'moved');
    expect(s).toMatchObject({ read: 3001, imported: 3001, replaced: 1, records: 3000 });
    expect(recordsByPid(s.out).get(pid)).toMatchObject({ STATE: 'WY', CITY: 'MOVED', AGE: 12 });
    expect(integrity(s.out)).toEqual({ check: 'ok', records: 3000 });
  });

  it('takes per-state files in any order', async () => {
    const rows = sortedRows();
    const a = file('part-a.csv', rows.slice(0, 1500));
    const b = file('part-b.csv', rows.slice(1500));
    const inOrder = await run([a, b], 'in-order');
    const reversed = await run([b, a], 'reversed');
    expect(readRecords(reversed.summary.out)).toEqual(readRecords(inOrder.summary.out));
    expect(readRecords(inOrder.summary.out)).toEqual(readRecords(sorted.summary.out));
  });
});

/** Every vector a dataset file stores, as it stores it. */
function storedVectors(path: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT c.name, c.encoding, c.kind, c.dict, v.chunk, hex(v.data) AS data
         FROM columns c JOIN vector_chunks v ON v.name = c.name ORDER BY c.name, v.chunk`,
      )
      .all();
  } finally {
    db.close();
  }
}

describe('where rows are read', () => {
  it('reads on a worker thread (also under the test runner), in the same batches as on this thread', async () => {
    const sources = ALL_FIXTURES.map((f) => inspectSource(f));
    const batches: { worker: unknown[]; thread: unknown[] } = { worker: [], thread: [] };
    expect(await readBatches(sources, [wholeFiles(sources)], (b) => void batches.worker.push(b))).toEqual({
      kind: 'done',
      thread: 'worker',
    });
    const restore = overrideSettings({ importWorkers: false });
    try {
      expect(await readBatches(sources, [wholeFiles(sources)], (b) => void batches.thread.push(b))).toEqual({
        kind: 'done',
        thread: 'this thread',
      });
    } finally {
      restore();
    }
    expect(batches.worker.length).toBeGreaterThan(0);
    expect(batches.thread).toEqual(batches.worker);
  });

  it('imports the same records and rejects on this thread as with the worker', async () => {
    const a = await importFiles({ files: ALL_FIXTURES, out: join(dir, 'worker.sqlite') });
    const restore = overrideSettings({ importWorkers: false });
    let b: ImportSummary;
    try {
      b = await importFiles({ files: ALL_FIXTURES, out: join(dir, 'thread.sqlite') });
    } finally {
      restore();
    }
    expect(comparable(b)).toEqual(comparable(a));
    expect(readRecords(b.out)).toEqual(readRecords(a.out));
    // The vectors too, built on this thread by the one reader.
    expect(b.replaced).toBeGreaterThan(0); // staged input: the shared path
    expect(storedVectors(b.out)).toEqual(storedVectors(a.out));
    expect(readFileSync(b.rejectsPath, 'utf8')).toBe(readFileSync(a.rejectsPath, 'utf8'));
  });
});

describe('text the parser reports as broken, and text split between reads', () => {
  it('rejects a row with text after a closing quote, on its own line, and imports the rows after it', async () => {
    const path = file('malformed.csv', [
      `${pidOf(1)},CA,F,"Bob" Smith,30`,
      `${pidOf(2)},CA,M,"Fresno, CA",31`,
      `${pidOf(3)},CA,F,Plain,32`,
    ]);
    const s = await importFiles({ files: [path], out: join(dir, 'malformed.sqlite') });
    expect(s).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    expect(readRejects(s.rejectsPath)).toEqual([
      { file: path, line: '2', field: '', reason: MALFORMED_QUOTE, row: `${pidOf(1)},CA,F,"Bob" Smith,30` },
    ]);
    expect(recordsByPid(s.out).get(pidOf(2))).toMatchObject({ CITY: 'FRESNO, CA' });
  });

  it('decodes characters split between 1 MB reads, plain and gzipped', async () => {
    // Cities of 2- and 4-byte characters, so that the read boundaries fall inside characters.
    const city = (i: number): string => 'é😀'.repeat(20 + (i % 17));
    let text = Buffer.alloc(0);
    // Shift the text a byte at a time until the first boundary falls inside a character.
    for (let pad = 0; (text[1 << 20]! & 0xc0) !== 0x80; pad++) {
      const rows = Array.from({ length: 9000 }, (_, i) => `${pidOf(i + 1)},NY,F,${i === 0 ? 'X'.repeat(pad) : ''}${city(i)},${i % 90}`);
      text = Buffer.from([HEADER, ...rows].join('\r\n') + '\r\n');
    }
    const plain = join(dir, 'utf8.csv');
    writeFileSync(plain, text);
    const gz = join(dir, 'utf8.csv.gz');
    writeFileSync(gz, gzipSync(text));
    for (const path of [plain, gz]) {
      const s = await importFiles({ files: [path], out: join(dir, 'utf8.sqlite') });
      expect(s).toMatchObject({ read: 9000, imported: 9000, rejected: 0 });
      const byPid = recordsByPid(s.out);
      for (const i of [1, 1000, 4999, 8999]) expect(byPid.get(pidOf(i + 1))!.CITY).toBe(city(i).toUpperCase());
    }
  });

  it('stops, replacing nothing, on damaged gzip data', async () => {
    const out = join(dir, 'damaged.sqlite');
    await importFiles({ files: [fixture('missing-and-extra.csv')], out });
    const before = readFileSync(out);
    const whole = gzipSync(Buffer.from([HEADER, ...sortedRows()].join('\n') + '\n'));
    const damaged = join(dir, 'damaged.csv.gz');
    writeFileSync(damaged, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await expect(importFiles({ files: [damaged], out })).rejects.toThrow(/gzip data is damaged near line \d+/);
    expect(readFileSync(out).equals(before)).toBe(true);
  });
});
