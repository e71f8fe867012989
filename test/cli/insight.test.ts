// The CLI's insight: `profile` writes the profile of an audience atomically as JSON or CSV (by the
// name's ending), against plain SQL; `export --controls` carries `include` and `like` with a list
// imported by `lists import`; bad arguments exit 2 with one line and write nothing.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cli } from '../support/cli';
import { SqlOracle } from '../support/oracle';
import { ProfileOracle } from '../support/profileOracle';

let dir: string;
let home: string;
let oracle: SqlOracle;
let listId: string;
let listPids: string[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-cli-insight-'));
  home = join(dir, 'home');
  oracle = new SqlOracle(inject('datasetPath'));
  listPids = oracle.pids('TX').filter((_, k) => k % 9 === 0);
  const file = join(dir, 'customers.csv');
  writeFileSync(file, `PID\n${listPids.join('\n')}\n`);
  const imported = await cli(['lists', 'import', file, '--name', 'customers', '--home', home, '--db', inject('datasetPath')]);
  expect(imported.code, imported.stderr).toBe(0);
  listId = JSON.parse(imported.stdout.trim().split('\n').at(-1)!).id;
});
afterAll(() => {
  oracle.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = () => ['--db', inject('datasetPath'), '--home', home];

describe('cli profile and list controls', () => {
  it('profile writes the API answer as JSON, and one row a value as CSV, for an audience with include', async () => {
    const out = join(dir, 'profile.json');
    const controls = JSON.stringify({ include: [`list:${listId}`] });
    const filters = JSON.stringify([['GENDER', ['F']]]);
    const r = await cli([
      'profile',
      ...base(),
      '--state',
      'TX',
      '--filters',
      filters,
      '--controls',
      controls,
      '--fields',
      'ehi,AGE',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^profiled \d+ of \d+ people by 2 fields/);
    const answer = JSON.parse(readFileSync(out, 'utf8'));
    const women = new Set(oracle.pids('TX', [['GENDER', ['F']]]));
    const pids = listPids.filter((p) => women.has(p));
    const profiles = new ProfileOracle(inject('datasetPath'));
    try {
      const expected = profiles.profile('TX', pids, ['EHI', 'AGE']);
      expect(answer.total).toBe(pids.length);
      expect(answer.base.total).toBe(expected.baseTotal);
      for (const field of answer.fields)
        expect(field.values.map(({ code, count, baseCount, index }: any) => ({ code, count, baseCount, index }))).toEqual(
          expected.fields.get(field.name)!.map(({ code, count, baseCount, index }) => ({ code, count, baseCount, index })),
        );
    } finally {
      profiles.close();
    }
    const csv = join(dir, 'profile.csv');
    const c = await cli([
      'profile',
      ...base(),
      '--state',
      'TX',
      '--filters',
      filters,
      '--controls',
      controls,
      '--fields',
      'EHI,AGE',
      '--out',
      csv,
    ]);
    expect(c.code, c.stderr).toBe(0);
    const lines = readFileSync(csv, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('field,field_label,code,label,count,share,base_count,base_share,index,confidence');
    expect(lines).toHaveLength(1 + answer.fields[0].values.length + answer.fields[1].values.length);
    expect(lines[1]).toMatch(/^EHI,Estimated household income,A,"?Under \$15,000"?,/);
  });

  it('bad arguments exit 2 with one line and write nothing', async () => {
    const out = join(dir, 'never.json');
    for (const args of [
      ['--state', 'TX', '--fields', 'FNAME', '--out', out],
      ['--state', 'TX', '--out', join(dir, 'never.xlsx')],
      ['--state', 'ZZ', '--out', out],
      ['--state', 'TX', '--controls', '{"include":["list:nope"]}', '--out', out],
      ['--state', 'TX', '--filters', '{bad', '--out', out],
    ]) {
      const r = await cli(['profile', ...base(), ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('export --controls carries include and like: the list’s people, or lookalikes of them that are never on it', async () => {
    const out = join(dir, 'included.csv');
    const args = ['export', ...base(), '--state', 'TX', '--format', 'csv', '--out', out];
    const r = await cli([...args, '--controls', JSON.stringify({ include: [`list:${listId}`] })]);
    expect(r.code, r.stderr).toBe(0);
    const pids = (file: string) =>
      readFileSync(file, 'utf8')
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .map((l) => l.slice(0, 32));
    expect(pids(out).sort()).toEqual([...listPids].sort());
    const like = await cli([...args, '--controls', JSON.stringify({ like: { seed: `list:${listId}`, top: 40 } })]);
    expect(like.code, like.stderr).toBe(0);
    const found = pids(out);
    expect(found).toHaveLength(40);
    const onList = new Set(listPids);
    expect(found.some((p) => onList.has(p))).toBe(false);
  });
});
