// Suppression lists through the handler table (the app) and the CLI (a child process): only a
// picked file is imported, list and delete answer as the store does, and nothing a transport
// prints or returns holds a value of the list. The CLI's export is audited and remembered too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore } from '../../src/core/createCore';
import { cli } from '../support/cli';
import { failure, startHandlers, type HandlerHarness } from '../handlers/harness';
import { readPeople, writeMessyList, type MessyList, type PersonValues } from './listData';

let dir: string;
let people: PersonValues[];
let file: string;
let list: MessyList;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-lists-io-'));
  people = readPeople(inject('datasetPath'));
  file = join(dir, 'suppress.csv');
  list = writeMessyList(file, people);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** No value of the list in a transport's output. */
function expectNoValues(text: string): void {
  const upper = text.toUpperCase();
  for (const v of [...list.pids, ...list.phones, ...list.addresses.map(([a]) => a)]) expect(upper).not.toContain(v);
}

describe('lists/* handlers', () => {
  let t: HandlerHarness;
  beforeAll(async () => {
    t = await startHandlers(inject('datasetPath'));
  });
  afterAll(() => t.close());

  it('imports only a picked file, then lists and deletes it', async () => {
    expect(await failure(t.h['lists/import']({ file, name: 'not picked' }))).toMatchObject({ code: 'forbidden', field: 'file' });
    expect(await t.h['lists/list']({})).toEqual([]);
    t.importPick.files = [file];
    const pick = await t.h['lists/pick']({});
    expect(pick).toEqual({ files: [file], inbox: null });
    const info = await t.h['lists/import']({ file, name: 'Suppress' });
    expect(info).toMatchObject({ name: 'Suppress', rows: list.rows, rejected: list.rejectLines.length });
    expect(info.matched).toBeGreaterThan(0);
    expectNoValues(JSON.stringify(info));
    expect(await t.h['lists/list']({})).toEqual([info]);
    expect(await failure(t.h['lists/import']({ file, name: 'suppress' }))).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(await t.h['lists/delete']({ id: info.id })).toEqual({ ok: true });
    expect(await failure(t.h['lists/delete']({ id: info.id }))).toMatchObject({ code: 'not_found', field: 'id' });
    expect(await failure(t.h['lists/delete']({ id: '' }))).toMatchObject({ code: 'invalid_request' });
    expect(t.errors).toEqual([]);
  });
});

describe('cli lists', () => {
  it('import prints a JSON summary last, list shows it, delete removes it; no value is printed', async () => {
    const home = join(dir, 'home');
    const db = inject('datasetPath');
    const imported = await cli(['lists', 'import', file, '--name', 'CLI list', '--home', home, '--db', db]);
    expect(imported.code).toBe(0);
    const summary = JSON.parse(imported.stdout.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
    expect(Object.keys(summary)).toEqual(['id', 'name', 'rows', 'pids', 'phones', 'addresses', 'rejected', 'matched']);
    expect(summary).toMatchObject({ name: 'CLI list', rows: list.rows, pids: list.pids.length, rejected: list.rejectLines.length });
    expect(summary.matched).toBeGreaterThan(0);
    expect(imported.stderr).toContain(`line ${list.rejectLines[0]} rejected: empty row`);
    expectNoValues(imported.stdout + imported.stderr);

    const listed = await cli(['lists', 'list', '--home', home, '--db', db]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\t')[0]).toBe(summary.id);
    expect(listed.stdout).toContain(`matched ${summary.matched}`);
    expectNoValues(listed.stdout);

    expect((await cli(['lists', 'delete', String(summary.id), '--home', home])).code).toBe(0);
    expect((await cli(['lists', 'list', '--home', home, '--db', db])).stdout).toBe('');
    const again = await cli(['lists', 'delete', String(summary.id), '--home', home]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: No suppression list/);
  });

  it.each([
    [['lists']],
    [['lists', 'bogus']],
    [['lists', 'import', '--name', 'x']],
    [['lists', 'import', 'FILE']],
    [['lists', 'import', 'no-such-file.csv', '--name', 'x']],
    [['lists', 'import', 'FILE', '--name', '']],
    [['lists', 'import', 'FILE', '--name', 'x', '--db', 'no-such.sqlite']],
    [['lists', 'list', '--bogus']],
    [['lists', 'delete']],
  ])('bad arguments %j: one line on stderr, exit 2', async (args) => {
    const r = await cli(args.map((a) => (a === 'FILE' ? file : a)));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: /);
  });

  it('a name already in use: exit 2, nothing imported', async () => {
    const home = join(dir, 'home-dup');
    const db = inject('datasetPath');
    expect((await cli(['lists', 'import', file, '--name', 'Dup', '--home', home, '--db', db])).code).toBe(0);
    const dup = await cli(['lists', 'import', file, '--name', 'DUP', '--home', home, '--db', db]);
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(/^error: A list named "DUP" already exists/);
    expect((await cli(['lists', 'list', '--home', home, '--db', db])).stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe('cli export', () => {
  it('is audited with actor CLI and remembers whom it wrote; its output line is unchanged', async () => {
    const home = join(dir, 'home-export');
    const out = join(dir, 'wy.csv');
    const r = await cli(['export', '--db', inject('datasetPath'), '--state', 'WY', '--format', 'csv', '--out', out, '--home', home]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^exported (\d+) records in \d+\.\d\d s -> .*wy\.csv\n$/);
    const core = createCore({ homeDir: home, datasetPath: inject('datasetPath') });
    try {
      const [entry] = core.auditLog.list(1);
      const wy = people.filter((p) => core.exportHistory.matcher(entry!.id)!.matches([p.PID]));
      expect(entry).toMatchObject({ actor: 'CLI', action: 'export', outcome: 'done', excludable: true, records: wy.length, file: out });
      expect(r.stdout).toContain(`exported ${wy.length} records`);
      expect(wy.length).toBe(core.engine.count({ state: 'WY', filters: [] }));
    } finally {
      await core.shutdown();
    }
  });
});
