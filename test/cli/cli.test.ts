// The headless CLI contract: commands, output lines other tools rely on, exit status 2 on bad
// arguments, clean stop on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { cli } from '../support/cli';
import { openDatasetSql } from '../support/datasetSql';
import { SqlOracle } from '../support/oracle';
import { csvField } from '../../src/core/dataset/codec/recordFormat';
import { codeLabel } from '../../src/shared/codebook';
import { DATA_DICTIONARY } from '../../src/shared/dictionary';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cli', () => {
  it('generate writes the same records for the same rows and seed, and others for another seed', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(dir, `${n}.sqlite`)) as [string, string, string];
    for (const [out, seed] of [
      [a, '3'],
      [b, '3'],
      [c, '4'],
    ] as const) {
      const r = await cli(['generate', '--rows', '500', '--seed', seed, '--out', out]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/generated 500 records/);
    }
    const records = (path: string): string[] => {
      const db = openDatasetSql(path);
      try {
        return db.prepare('SELECT record FROM records ORDER BY _pos').pluck().all() as string[];
      } finally {
        db.close();
      }
    };
    expect(records(a)).toHaveLength(500);
    expect(records(b)).toEqual(records(a));
    expect(records(c)).not.toEqual(records(a));
  });

  it('keys create prints the key alone on the last line; list starts lines with the id; revoke takes it', async () => {
    const home = join(dir, 'home');
    const created = await cli(['keys', 'create', '--name', 'ci tool', '--home', home]);
    const key = created.stdout.trimEnd().split('\n').at(-1)!;
    expect(key).toMatch(/^adk_[A-Za-z0-9_-]{43}$/);
    const listed = await cli(['keys', 'list', '--home', home]);
    const id = listed.stdout.trim().split('\t')[0]!;
    expect(listed.stdout).toContain('ci tool');
    expect(listed.stdout).not.toContain(key);
    expect((await cli(['keys', 'revoke', id, '--home', home])).code).toBe(0);
    expect((await cli(['keys', 'list', '--home', home])).stdout).toMatch(/revoked/);
  });

  it.each([
    [['nope']],
    [['generate', '--rows', 'ten', '--out', 'x']],
    [['generate', '--out', 'x']],
    [['keys', 'create']],
    [['keys', 'revoke']],
    [['serve', '--port', 'abc']],
    [['serve', '--bogus']],
    [['export', '--state', 'CA', '--format', 'xml', '--out', 'x']],
    [['export', '--state', 'ZZ', '--format', 'csv', '--out', 'x']],
    [['export', '--state', 'CA', '--format', 'csv', '--filters', '{bad', '--out', 'x']],
  ])('bad arguments %j: one line on stderr, exit 2', async (args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: /);
  });

  it('export writes the audience file', async () => {
    const out = join(dir, 'out.csv');
    const r = await cli([
      'export',
      '--db',
      inject('datasetPath'),
      '--state',
      'WY',
      '--filters',
      '[["GENDER",["F"]]]',
      '--format',
      'csv',
      '--out',
      out,
      '--home',
      join(dir, 'home'),
    ]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\r\n')[0]).toMatch(/^PID,HHID,/);
  });

  it('export writes a header of field labels with --header labels, and refuses other values', async () => {
    const out = join(dir, 'labels.csv');
    const args = ['export', '--db', inject('datasetPath'), '--state', 'WY', '--format', 'csv', '--out', out, '--home', join(dir, 'home')];
    expect((await cli([...args, '--header', 'labels'])).code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\r\n')[0]).toBe(DATA_DICTIONARY.map((e) => csvField(e.label)).join(','));
    const bad = await cli([...args, '--header', 'codes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--header must be names, labels or both/);
  });

  it('export takes the list controls as --controls JSON and writes exactly those people; bad ones exit 2', async () => {
    const out = join(dir, 'controls.csv');
    const controls = '{"households":"one","contact":{"phone":"callable"},"sample":{"every":3}}';
    const args = ['export', '--db', inject('datasetPath'), '--state', 'CA', '--format', 'csv', '--out', out, '--home', join(dir, 'home')];
    const r = await cli([...args, '--controls', controls]);
    expect(r.code, r.stderr).toBe(0);
    const oracle = new SqlOracle(inject('datasetPath'));
    try {
      const expected = oracle.listPids('CA', [], { phone: true, oneHousehold: true, every: 3 });
      const lines = readFileSync(out, 'utf8').trimEnd().split('\r\n').slice(1);
      // An export writes the file's order (households by ZIP in a generated file).
      expect(lines.map((l) => l.slice(0, 32))).toEqual(oracle.inStorageOrder(expected));
    } finally {
      oracle.close();
    }
    for (const bad of ['{"households":"two"}', '[1]', 'nope']) {
      const b = await cli([...args, '--controls', bad]);
      expect(b.code).toBe(2);
      expect(b.stderr).toMatch(/households|--controls/);
    }
  });

  it('export --fields takes a preset or names, --values labels writes the codebook meanings; unknown names exit 2, nothing written', async () => {
    const out = join(dir, 'mailing.csv');
    const args = ['export', '--db', inject('datasetPath'), '--state', 'WY', '--format', 'csv', '--out', out, '--home', join(dir, 'home')];
    const r = await cli([...args, '--fields', 'mailing,EHI', '--values', 'labels']);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('PID,FNAME,MNAME,LNAME,SUFFIX,ADDRESS,CITY,STATE,ZIP,Z4,EHI');
    const oracle = new SqlOracle(inject('datasetPath'));
    try {
      const byPid = new Map(oracle.records('WY', [], 100_000, 0).map((rec) => [rec.PID as string, rec]));
      expect(lines.length - 1).toBe(byPid.size);
      for (const cells of (parse(readFileSync(out, 'utf8')) as string[][]).slice(1)) {
        const rec = byPid.get(cells[0]!)!;
        expect(cells.at(-1)).toBe(codeLabel('EHI', rec.EHI as string) ?? rec.EHI);
      }
    } finally {
      oracle.close();
    }
    const missing = join(dir, 'never.csv');
    const bad = await cli([...args.slice(0, -4), '--out', missing, '--home', join(dir, 'home'), '--fields', 'FNAME,INCOME,ZIPP']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/"INCOME", "ZIPP"/);
    expect(existsSync(missing)).toBe(false);
    const values = await cli([...args, '--values', 'words']);
    expect(values.code).toBe(2);
    expect(values.stderr).toMatch(/--values must be codes or labels/);
  });

  it('export near a ZIP the state does not hold: one line naming the ZIP and "near", exit 2, nothing written', async () => {
    const oracle = new SqlOracle(inject('datasetPath'));
    const nyZip = String(oracle.distinct('NY', 'ZIP')[0]);
    oracle.close();
    const out = join(dir, 'near-elsewhere.csv');
    const r = await cli([
      ...['export', '--db', inject('datasetPath'), '--state', 'CA', '--format', 'csv', '--out', out, '--home', join(dir, 'home')],
      ...['--controls', JSON.stringify({ near: { zip: nyZip, miles: 25 } })],
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`"near" names ZIP ${nyZip}`);
    expect(existsSync(out)).toBe(false);
  });

  it('serve prints the real port for --port 0, answers, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/index.ts', 'serve', '--db', inject('datasetPath'), '--port', '0', '--home', join(dir, 'home')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /api: (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    expect(url).not.toMatch(/:0$/);
    expect(((await (await fetch(url + '/api/health')).json()) as any).records).toBe(inject('testRows'));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'home', 'app-state.sqlite'))).toBe(true);
  });
});
