// A full disk, for real: a small tmpfs mounted for the test (CI runs as root; elsewhere the test is
// skipped and says why). Import, export, generation, backup and app-state writes each fail with one
// line on stderr of its own that names the file, says about how much it needed and how much is free,
// and leave nothing half-written behind: no file under the chosen name, no temporary files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CSV_HEADER } from '../../src/core/dataset/codec/recordFormat';
import { cli } from '../support/cli';
import { recordToCsvLine } from '../support/recordReference';
import { readRecords } from '../import/helpers';

const isRoot = process.getuid?.() === 0;
let dir: string;
let full: string;
let mounted = false;

function tryMount(path: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', path], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-full-'));
  full = join(dir, 'small-disk');
  mkdirSync(full);
  if (isRoot) mounted = tryMount(full, '1m');
});
afterAll(() => {
  if (mounted) execFileSync('umount', [full]);
  rmSync(dir, { recursive: true, force: true });
});

/** The error's own line: `error: The disk is full: <file> could not be written. It needs about N <unit> and M <unit> is free there; …`. */
function fullDiskLine(stderr: string, file: string): string {
  const lines = stderr.split(/\r?\n|\r/);
  const line = lines.find((l) => l.startsWith('error: The disk is full'));
  expect(line, stderr).toBeDefined();
  expect(line).toContain(`${file} could not be written`);
  expect(line).toMatch(/It needs about [\d.]+ (bytes|KB|MB|GB) and [\d.]+ (bytes|KB|MB|GB) is free there/);
  return line!;
}

const onTheDisk = (): string[] => readdirSync(full).filter((n) => n !== 'lost+found');

describe.skipIf(!isRoot)('a full disk (a 1 MB tmpfs; mounting needs root, as CI runs: skipped otherwise)', () => {
  it('export: the error names the file and how much it needed, on its own line; no file is left', async () => {
    expect(mounted, 'mount -t tmpfs failed although running as root').toBe(true);
    const out = join(full, 'ca.csv');
    const r = await cli([
      'export',
      '--db',
      inject('datasetPath'),
      '--state',
      'CA',
      '--filters',
      '[]',
      '--format',
      'csv',
      '--out',
      out,
      '--home',
      join(dir, 'home'),
    ]);
    expect(r.code).toBe(1);
    const line = fullDiskLine(r.stderr, out);
    // CA is several MB of CSV: the estimate says so.
    expect(line).toMatch(/needs about [\d.]+ MB/);
    expect(r.stderr).toMatch(/\n(error: The disk is full)/);
    expect(onTheDisk()).toEqual([]);
  });

  it('generation: names the dataset file and leaves no partial file', async () => {
    const out = join(full, 'generated.sqlite');
    const r = await cli(['generate', '--rows', '5000', '--seed', '3', '--out', out]);
    expect(r.code).toBe(1);
    fullDiskLine(r.stderr, out);
    expect(onTheDisk()).toEqual([]);
  });

  it('import: names the dataset file and leaves neither it nor its temporary files', async () => {
    const input = join(dir, 'vendor.csv');
    const records = readRecords(inject('datasetPath')).slice(0, 3000);
    writeFileSync(input, [CSV_HEADER, ...records.map(recordToCsvLine)].join('\r\n') + '\r\n');
    const out = join(full, 'imported.sqlite');
    const r = await cli(['import', input, '--out', out]);
    expect(r.code).toBe(1);
    fullDiskLine(r.stderr, out);
    expect(onTheDisk()).toEqual([]);
  });

  it('backup: names the backup file; nothing is left under its name', async () => {
    const home = join(dir, 'backup-home');
    expect((await cli(['keys', 'create', '--name', 'a', '--home', home])).code).toBe(0);
    // Fill the disk but for a few KB: the backup (tens of KB) cannot fit.
    writeFileSync(join(full, 'filler'), Buffer.alloc(1024 * 1024 - 16 * 1024));
    try {
      const out = join(full, 'state.backup');
      const r = await cli(['backup', '--home', home, '--out', out]);
      expect(r.code).toBe(1);
      fullDiskLine(r.stderr, out);
      expect(onTheDisk()).toEqual(['filler']);
    } finally {
      rmSync(join(full, 'filler'), { force: true });
    }
  });

  it('app-state writes: names the app-state file; what was there before is kept', async () => {
    const home = join(full, 'home');
    expect((await cli(['keys', 'create', '--name', 'first', '--home', home])).code).toBe(0);
    const free = (): number => Number(execFileSync('df', ['--output=avail', '-B1', full], { encoding: 'utf8' }).trim().split('\n').pop());
    // Room for app state to open (its WAL's shared memory is 32 KB), not for a big write.
    writeFileSync(join(full, 'filler'), Buffer.alloc(Math.max(0, free() - 96 * 1024)));
    try {
      // With no room even to open app state, the command says so about the same file.
      writeFileSync(join(full, 'filler-2'), Buffer.alloc(Math.max(0, free() - 4096)));
      const opening = await cli(['keys', 'list', '--home', home]);
      expect(opening.code).toBe(1);
      fullDiskLine(opening.stderr, join(home, 'app-state.sqlite'));
      rmSync(join(full, 'filler-2'));
      // Many lists' worth of writes: a suppression list of 20,000 PIDs is ~700 KB of hashes and index.
      const list = join(dir, 'big-list.csv');
      writeFileSync(list, `PID\n${Array.from({ length: 20_000 }, (_, i) => i.toString(16).toUpperCase().padStart(32, '0')).join('\n')}\n`);
      const r = await cli(['lists', 'import', list, '--name', 'big', '--home', home]);
      expect(r.code).toBe(1);
      fullDiskLine(r.stderr, join(home, 'app-state.sqlite'));
    } finally {
      rmSync(join(full, 'filler'), { force: true });
    }
    const listed = await cli(['keys', 'list', '--home', home]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('first');
    expect(listed.stderr).toBe('');
  });
});
