// Crash safety of a real import process: `node --import tsx src/cli/index.ts import …` (one process,
// so SIGKILL reaches the importer itself, not a launcher) is killed with -9 at random moments while
// it reads and while it builds the new dataset. Each time the previous dataset at --out must be
// byte-for-byte intact and pass PRAGMA integrity_check; the next run must remove the dead run's
// temporary files and produce the same records as an import that was never interrupted.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatasetSql } from '../support/datasetSql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFiles } from '../../src/core/import/importFiles';
import { STATE_CODES } from '../../src/shared/states';
import { fixture, integrity, listDir, tempDir } from './helpers';

const ROWS = 100_000;
let dir: string;
let input: string;
let out: string;
let before: Buffer;
let expected: string;

/** A hash of a dataset's records in position order: equal hashes, equal records. */
function recordsHash(path: string): string {
  const db = openDatasetSql(path);
  try {
    const hash = createHash('sha256');
    for (const text of db.prepare('SELECT record FROM records ORDER BY _pos').pluck().iterate() as Iterable<string>)
      hash.update(text).update('\n');
    return hash.digest('hex');
  } finally {
    db.close();
  }
}

/** The import's temporary files for `out` (any pid). */
const temporaries = (): string[] => listDir(dir).filter((n) => /\.(building|staging)-\d+|\.partial-\d+/.test(n));

function startImport(): {
  pid: Promise<number>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'import', input, '--out', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { pid: Promise.resolve(child.pid!), exit };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until a file whose name matches appears in the folder (or the process ends). */
async function waitFor(pattern: RegExp, ended: () => boolean): Promise<boolean> {
  while (!ended()) {
    if (listDir(dir).some((n) => pattern.test(n))) return true;
    await sleep(5);
  }
  return false;
}

beforeAll(async () => {
  dir = tempDir('audience-desk-import-crash-');
  input = join(dir, 'big.csv');
  out = join(dir, 'dataset.sqlite');
  // 100k narrow rows in random (STATE, PID) order: quick to write, long enough to kill mid-way.
  const lines = ['PID,STATE,GENDER,FNAME,CITY,AGE,MS_BOOKS'];
  let x = 12345;
  const next = (): number => (x = (x * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < ROWS; i++) {
    const n = next();
    lines.push(
      `${(n.toString(16).padStart(8, '0') + i.toString(16).padStart(24, '0')).toUpperCase()},${STATE_CODES[n % STATE_CODES.length]},${n % 2 ? 'F' : 'M'},NAME${n % 977},CITY ${n % 131},${n % 90},${n % 7}`,
    );
  }
  writeFileSync(input, lines.join('\n') + '\n');
  // The previous dataset, and the result an uninterrupted import of the big file gives.
  await importFiles({ files: [fixture('missing-and-extra.csv')], out });
  before = readFileSync(out);
  const reference = join(dir, 'reference.sqlite');
  const summary = await importFiles({ files: [input], out: reference });
  expect(summary).toMatchObject({ read: ROWS, imported: ROWS, rejected: 0 });
  expected = recordsHash(reference);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an import killed with SIGKILL', () => {
  // Where to kill: once the file marking a phase exists, after a random delay within that phase.
  const moments: Array<[string, RegExp, number]> = [
    ['while reading (staging exists)', /^dataset\.sqlite\.staging-\d+$/, 400],
    ['while reading, later', /^dataset\.sqlite\.staging-\d+$/, 1200],
    ['while building the new dataset', /^dataset\.sqlite\.building-\d+$/, 600],
  ];

  it.each(moments)(
    '%s leaves the previous dataset intact',
    async (_, marker, maxDelay) => {
      const run = startImport();
      let ended = false;
      void run.exit.then(() => (ended = true));
      const seen = await waitFor(marker, () => ended);
      expect(seen, 'the import reached the phase before ending').toBe(true);
      await sleep(Math.floor(Math.random() * maxDelay));
      process.kill(await run.pid, 'SIGKILL');
      const result = await run.exit;
      expect(result.signal, `the import finished before the kill: ${result.stdout}`).toBe('SIGKILL');
      expect(readFileSync(out).equals(before)).toBe(true);
      expect(integrity(out)).toEqual({ check: 'ok', records: 2 });
    },
    120_000,
  );

  it("the next run removes the dead runs' temporary files and gives the uninterrupted result", async () => {
    expect(temporaries().length).toBeGreaterThan(0); // left by the kills above
    expect(temporaries().some((n) => n.includes('-vectors'))).toBe(true); // spilled vectors among them
    const run = startImport();
    const result = await run.exit;
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout.trimEnd().split('\n').at(-1)!);
    expect(summary).toMatchObject({ read: ROWS, imported: ROWS, rejected: 0, replaced: 0 });
    expect(Object.keys(summary)).toEqual(['read', 'imported', 'rejected', 'replaced', 'seconds']);
    expect(integrity(out)).toEqual({ check: 'ok', records: ROWS });
    expect(recordsHash(out)).toBe(expected);
    expect(temporaries()).toEqual([]);
    expect(existsSync(`${out}.rejects.csv`)).toBe(true);
  }, 120_000);
});
