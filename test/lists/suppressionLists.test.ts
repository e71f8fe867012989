// Suppression lists against the shared test dataset: a messy list of phones, PIDs and addresses
// names exactly the people a plain-SQL oracle finds for the same values; rejects are known by line
// and reason; a failed import stores nothing; the app-state file never holds a value of a list.
import { openDatasetSql } from '../support/datasetSql';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { normalizeAddressLine } from '../../src/shared/normalize';
import type { SuppressionListInfo } from '../../src/shared/contract';
import { failure } from '../handlers/harness';
import { messyPhone, readPeople, writeMessyList, type MessyList, type PersonValues } from './listData';

let dir: string;
let core: Core;
let people: PersonValues[];
let list: MessyList;
let info: SuppressionListInfo;
let listFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-lists-'));
  core = createCore({ homeDir: join(dir, 'home'), datasetPath: inject('datasetPath') });
  people = readPeople(inject('datasetPath'));
  listFile = join(dir, 'do-not-contact.csv');
  list = writeMessyList(listFile, people);
  info = await core.lists.import(listFile, 'Do not contact');
});
afterAll(async () => {
  await core.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

/** The oracle: plain SQL over the dataset file's `people` view, with the values as the dataset holds them. */
function oraclePids(l: MessyList): string[] {
  const db = openDatasetSql(inject('datasetPath'));
  try {
    return db
      .prepare(
        `SELECT PID FROM people
         WHERE PID IN (SELECT value FROM json_each(?))
            OR PHONE IN (SELECT value FROM json_each(?)) OR PHONE2 IN (SELECT value FROM json_each(?)) OR PHONE3 IN (SELECT value FROM json_each(?))
            OR ADDRESS || '|' || ZIP IN (SELECT value FROM json_each(?))
         ORDER BY PID`,
      )
      .pluck()
      .all(
        JSON.stringify(l.pids),
        JSON.stringify(l.phones),
        JSON.stringify(l.phones),
        JSON.stringify(l.phones),
        JSON.stringify(l.addresses.map(([a, z]) => `${a}|${z}`)),
      ) as string[];
  } finally {
    db.close();
  }
}

function matchedPids(id: string): string[] {
  const matcher = core.lists.matcher(id)!;
  expect(matcher.fields).toEqual(['PID', 'PHONE', 'PHONE2', 'PHONE3', 'ADDRESS', 'ZIP']);
  return people.filter((p) => matcher.matches(matcher.fields.map((f) => p[f as keyof PersonValues]))).map((p) => p.PID);
}

describe('importing a messy list', () => {
  it('keeps each PID, phone and address once and rejects the rest by line and reason', () => {
    expect(info).toMatchObject({
      name: 'Do not contact',
      rows: list.rows,
      pids: list.pids.length,
      phones: new Set(list.phones).size,
      addresses: new Set(list.addresses.map(([a, z]) => `${a}|${z}`)).size,
      rejected: list.rejectLines.length,
    });
    expect(info.id).toMatch(/^[0-9a-f]{16}$/);
    expect(info.rejects.map((r) => r.line)).toEqual(list.rejectLines);
    expect(info.rejects.map((r) => r.reason)).toEqual([
      'empty row',
      'PID is not 32 hexadecimal characters; phone is not 10 digits',
      'empty row',
      'address without a ZIP',
      'PID is not 32 hexadecimal characters; phone is not 10 digits',
    ]);
  });

  it('names exactly the people the oracle finds for the same values', () => {
    const want = oraclePids(list);
    // Households share an address and people a phone: more people than values, and every kind counts.
    expect(want.length).toBeGreaterThan(list.pids.length + list.phones.length + list.addresses.length);
    expect(matchedPids(info.id)).toEqual(want);
    expect(info.matched).toBe(want.length);
  });

  it('each kind of value on its own names exactly its people', async () => {
    const byKind: Array<[string, MessyList]> = [
      ['pids', { ...list, phones: [], addresses: [] }],
      ['phones', { ...list, pids: [], addresses: [] }],
    ];
    for (const [name, part] of byKind) {
      const file = join(dir, `${name}.txt`);
      // One column, no header: PIDs or phones, one a line.
      const values = name === 'pids' ? part.pids.map((p) => p.toLowerCase()) : part.phones.map((p, k) => messyPhone(p, k));
      writeFileSync(file, values.join('\n') + '\n');
      const one = await core.lists.import(file, `only ${name}`);
      expect(one).toMatchObject({ rows: values.length, rejected: 0 });
      expect(matchedPids(one.id)).toEqual(oraclePids(part));
      core.lists.delete(one.id);
    }
  });

  it('lists with the count of people named, without recounting', async () => {
    const [listed] = await core.lists.list();
    expect(listed).toEqual(info);
    expect(await core.lists.get(info.id)).toEqual(info);
  });
});

describe('what app state holds', () => {
  it('never a PID, phone or address of the list, raw or normalised', async () => {
    const { appState } = homeLayout(join(dir, 'home'));
    const bytes = [appState, `${appState}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('\n');
    expect(bytes.length).toBeGreaterThan(0);
    const values = [
      ...list.pids,
      ...list.pids.map((p) => p.toLowerCase()),
      ...list.phones,
      ...list.addresses.flatMap(([a]) => [a, normalizeAddressLine(a)!]),
    ];
    const found = values.filter((v) => bytes.includes(v));
    expect(found).toEqual([]);
    // The list's own file does hold them (the check would see them).
    expect(readFileSync(listFile, 'latin1').toUpperCase()).toContain(list.pids[0]);
  });
});

describe('bad input changes nothing', () => {
  const count = () => core.appState.prepare('SELECT count(*) FROM suppression_values').pluck().get() as number;

  it.each([
    [
      'a file without a usable row',
      'PHONE,ADDRESS,ZIP\n12,,\n,,\n',
      /No row of .* holds a PID, phone or address \(2 rows; line 2: phone is not 10 digits\)/,
    ],
    ['a file whose header names no column', 'name,email\nann,a@b\n', /names no PID, PHONE, ADDRESS or ZIP column/],
    ['an address column without a ZIP', 'ADDRESS\n1 Main St\n', /address column without a ZIP/],
    ['an empty file', '', /No row of .* holds a PID, phone or address \(0 rows\)/],
  ])('%s', async (_name, text, message) => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, text);
    const before = count();
    const e = await failure(core.lists.import(file, 'bad'));
    expect(e).toMatchObject({ code: 'invalid_request', field: 'file' });
    expect(e.message).toMatch(message);
    expect(count()).toBe(before);
    expect((await core.lists.list()).map((l) => l.name)).toEqual(['Do not contact']);
  });

  it('a file it cannot read, UTF-16 text', async () => {
    expect(await failure(core.lists.import(join(dir, 'missing.csv'), 'x'))).toMatchObject({
      code: 'invalid_request',
      field: 'file',
      message: 'Cannot read missing.csv: ENOENT.',
    });
    const utf16 = join(dir, 'utf16.csv');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('PHONE\n9074815345\n', 'utf16le')]));
    expect((await failure(core.lists.import(utf16, 'x'))).message).toMatch(/UTF-16/);
  });

  it('a name in use (whatever its case), empty or too long', async () => {
    for (const name of ['DO NOT CONTACT', '  ', 'x'.repeat(101), 'two\nlines'])
      expect(await failure(core.lists.import(listFile, name))).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect((await core.lists.list()).length).toBe(1);
  });

  it('an unknown id: not_found naming id; no matcher', async () => {
    expect(await failure(core.lists.get('nope'))).toMatchObject({ code: 'not_found', field: 'id' });
    expect(() => core.lists.delete('nope')).toThrow(/No suppression list/);
    expect(core.lists.matcher('nope')).toBeUndefined();
  });
});

describe('deleting a list', () => {
  it('removes it and its hashes', async () => {
    const file = join(dir, 'short.csv');
    writeFileSync(file, `PID\n${people[0]!.PID}\n`);
    const short = await core.lists.import(file, 'short');
    expect(short.matched).toBe(1);
    core.lists.delete(short.id);
    expect(core.lists.matcher(short.id)).toBeUndefined();
    expect(core.appState.prepare('SELECT count(*) FROM suppression_values WHERE list_id = ?').pluck().get(short.id)).toBe(0);
    expect((await core.lists.list()).map((l) => l.id)).toEqual([info.id]);
  });
});
