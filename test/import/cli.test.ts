// The `import` command's contract: the last stdout line is the JSON summary, notes go to stderr
// once, bad arguments are one line and exit 2, an unusable file is one line and exit 1.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { FIELD_NAMES } from '../../src/shared/fields';
import { fixture, integrity, readRecords, readRejects, tempDir } from './helpers';

let dir: string;
beforeAll(() => {
  dir = tempDir('audience-desk-import-cli-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cli import', () => {
  it('--map puts a vendor column into a record field or skips it; a field that does not exist is exit 2', async () => {
    const file = join(dir, 'renamed.csv');
    writeFileSync(file, 'Person Key,St,Sex,Given Name,Notes,ZIP\nB0000000000000000000000000000001,wy,f,Ann,call later,82001\n');
    const out = join(dir, 'mapped.sqlite');
    const maps = ['Person Key=PID', 'st=STATE', 'SEX=gender', 'Given Name=FNAME', 'Notes=', 'ZIP='];
    const r = await cli(['import', file, '--out', out, ...maps.flatMap((m) => ['--map', m])]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trimEnd().split('\n').at(-1)!)).toMatchObject({ read: 1, imported: 1, rejected: 0 });
    const [record] = readRecords(out);
    const value = (name: string) => record![FIELD_NAMES.indexOf(name)];
    expect([value('PID'), value('STATE'), value('GENDER'), value('FNAME')]).toEqual(['B0000000000000000000000000000001', 'WY', 'F', 'ANN']);
    // A skipped column fills nothing, even one named after a field.
    expect(value('ZIP')).toBe('');
    expect(r.stderr).toContain('Notes, ZIP');

    for (const bad of [
      ['--map', 'Person Key=NOPE'],
      ['--map', 'no equals sign'],
    ]) {
      const b = await cli(['import', file, '--out', join(dir, 'never.sqlite'), ...bad]);
      expect(b.code).toBe(2);
      expect(b.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(b.stderr).toMatch(/NOPE|--map takes HEADER=FIELD/);
    }
  });

  it('prints the summary as the last stdout line and reports unknown columns once on stderr', async () => {
    const out = join(dir, 'cli.sqlite');
    const rejects = join(dir, 'cli-rejects.csv');
    const r = await cli([
      'import',
      fixture('comma-bom-crlf.csv'),
      fixture('missing-and-extra.csv'),
      fixture('bad-rows.csv'),
      '--out',
      out,
      '--rejects',
      rejects,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout.trimEnd().split('\n').at(-1)!);
    expect(Object.keys(summary)).toEqual(['read', 'imported', 'rejected', 'replaced', 'seconds']);
    expect(summary).toMatchObject({ read: 24, imported: 9, rejected: 15, replaced: 1 });
    expect(summary.imported + summary.rejected).toBe(summary.read);
    expect(typeof summary.seconds).toBe('number');
    expect(integrity(out)).toEqual({ check: 'ok', records: summary.imported - summary.replaced });
    expect(readRejects(rejects)).toHaveLength(15);
    expect(r.stderr.match(/unknown column/g)).toHaveLength(1);
    expect(r.stderr).toContain('VENDOR_ID, notes');
  });

  it('takes --delimiter as tab, \\t, comma, pipe', async () => {
    const file = join(dir, 'tabbed.txt');
    writeFileSync(file, 'PID\tSTATE\tGENDER\tCITY,ST|X\nA0000000000000000000000000000001\tCA\tF\tA,B|C\n');
    for (const d of ['tab', '\\t', '\t']) {
      const r = await cli(['import', file, '--out', join(dir, 'tabbed.sqlite'), '--delimiter', d]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trimEnd().split('\n').at(-1)!)).toMatchObject({ read: 1, imported: 1 });
    }
  });

  it.each([
    [[]],
    [['--out', 'x.sqlite']],
    [['FILE']],
    [['FILE', '--out', 'OUT', '--delimiter', ';']],
    [['FILE', '--out', 'OUT', '--bogus']],
    [['nope.csv', '--out', 'OUT']],
    [['FILE', '--out', '/no/such/folder/x.sqlite']],
    [['FILE', '--out', 'FILE']],
    [['FILE', '--out', 'OUT', '--rejects', 'OUT']],
  ])('bad arguments %j: one line on stderr, exit 2', async (args) => {
    const real = args.map((a) => (a === 'FILE' ? fixture('missing-and-extra.csv') : a === 'OUT' ? join(dir, 'bad.sqlite') : a));
    const r = await cli(['import', ...real]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: /);
  });

  it('an unusable file (no PID column): one line, exit 1, nothing written', async () => {
    const file = join(dir, 'nopid.csv');
    writeFileSync(file, 'ID,STATE,GENDER\n1,CA,F\n');
    const out = join(dir, 'nopid.sqlite');
    const r = await cli(['import', file, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no PID column/);
    expect(r.stdout).toBe('');
  });
});
