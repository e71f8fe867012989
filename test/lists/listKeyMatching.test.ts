// A suppression list finds its people through list keys (dataset/format/listKeys.ts) and reads only their
// records: on a real dataset file whose phones and addresses are partly written in other forms, and
// a list that names people by every kind of value, written the messy way; the people named are
// exactly those a matcher finds by reading every record, in every state; a list imported before list
// keys, a list sealed under another home's secret and a dataset written before them still name the
// same people, by reading every record. The sealed keys are not the keys.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RecordMatcher } from '../../src/core/audience/contract/engine';
import { openAppState } from '../../src/core/appState/appStateDb';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { LIST_KEYS_KEY, listKey } from '../../src/core/dataset/format/listKeys';
import { generateRecords } from '../../src/core/generate';
import { normalizePhone } from '../../src/shared/normalize';
import { SuppressionLists } from '../../src/core/lists/suppressionLists';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import type { Db } from '../../src/core/sqlite';
import { fieldIndex } from '../../src/shared/fields';
import { copyWithMeta } from '../support/datasetMeta';

const [PID, PHONE, PHONE3, ADDRESS, ZIP] = ['PID', 'PHONE', 'PHONE3', 'ADDRESS', 'ZIP'].map(fieldIndex) as [
  number,
  number,
  number,
  number,
  number,
];

let dir: string;
let path: string;
let records: Array<Array<string | number>>;
let appState: Db;
let lists: SuppressionLists;
let engine: EmbeddedEngine;
let listId: string;

/** A list file naming people by PID, by phone and by address, the way people write them. */
function writeList(file: string): void {
  const lines = ['PID,PHONE,ADDRESS,ZIP'];
  records.forEach((r, k) => {
    if (k % 97 === 0) lines.push(`${String(r[PID]).toLowerCase()},,,`);
    else if (k % 89 === 0 && r[PHONE] !== '') lines.push(`,+1 ${String(normalizePhone(r[PHONE]!))} ext 4,,`);
    else if (k % 83 === 0)
      lines.push(
        `,,"${String(r[ADDRESS])
          .toUpperCase()
          .replace(/\bST\b/, 'Street')}",${String(r[ZIP]).slice(0, 5)}`,
      );
  });
  writeFileSync(file, lines.join('\n') + '\n');
}

/** The matcher as it was before list keys: it reads every record. */
const readingAll = (m: RecordMatcher): RecordMatcher => ({ key: `${m.key}|all`, fields: m.fields, matches: (v) => m.matches(v) });

/** The positions an engine's matcher names, and whether every record was read for them. */
function named(dataset: Dataset, matcher: RecordMatcher): { people: number; readEvery: boolean } {
  const every = vi.spyOn(dataset, 'rangeValues');
  const fresh = new EmbeddedEngine(dataset, { backgroundVerify: false });
  const people = fresh.countMatching(matcher);
  const readEvery = every.mock.calls.length > 0;
  every.mockRestore();
  return { people, readEvery };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-list-key-matching-'));
  records = [...generateRecords(4000, 33)].map((r) => [...r]);
  // Every seventh record's phones and address written as people write them, ZIP+4 included.
  records.forEach((r, k) => {
    if (k % 7 !== 0) return;
    const p = String(r[PHONE]);
    if (p !== '') r[PHONE] = `${p.slice(0, 3)}.${p.slice(3, 6)}.${p.slice(6)}`;
    if (r[PHONE3] !== '') r[PHONE3] = `1-${String(r[PHONE3])}`;
    r[ADDRESS] = String(r[ADDRESS]).toLowerCase();
    r[ZIP] = `${String(r[ZIP])}-0001`;
  });
  path = join(dir, 'people.sqlite');
  const writer = new DatasetWriter(path);
  for (const r of records) writer.append(r);
  writer.finish();
  appState = openAppState(join(dir, 'home'));
  engine = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false });
  lists = new SuppressionLists(appState, () => engine);
  const file = join(dir, 'list.csv');
  writeList(file);
  listId = (await lists.import(file, 'Do not contact')).id;
}, 120_000);
afterAll(() => {
  engine.close();
  appState.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a list with list keys', () => {
  it('names exactly the people reading every record names, and reads only its candidates', () => {
    const dataset = Dataset.open(path);
    try {
      const matcher = lists.matcher(listId)!;
      const all = named(dataset, readingAll(matcher));
      expect(all.readEvery).toBe(true);
      // Some of every kind, some of them written differently in the dataset than in the list.
      expect(all.people).toBeGreaterThan(100);
      const reads = vi.spyOn(dataset, 'valuesOf');
      const keyed = named(dataset, matcher);
      expect(keyed).toEqual({ people: all.people, readEvery: false });
      const read = reads.mock.calls.reduce((n, [positions]) => n + positions.length, 0);
      expect(read).toBeGreaterThanOrEqual(all.people);
      expect(read).toBeLessThan(all.people * 2);
      reads.mockRestore();
    } finally {
      dataset.close();
    }
  });

  it('is counted in the list info the same way', async () => {
    const dataset = Dataset.open(path);
    try {
      expect((await lists.get(listId)).matched).toBe(named(dataset, readingAll(lists.matcher(listId)!)).people);
    } finally {
      dataset.close();
    }
  });

  it('keeps its keys sealed: the stored blob holds none of them', () => {
    const blob = appState.prepare('SELECT key_hashes FROM suppression_lists WHERE id = ?').pluck().get(listId) as Buffer;
    const keys = lists.matcher(listId)!.listKeys!()!;
    expect(keys.pid.length + keys.phone.length + keys.address.length).toBeGreaterThan(50);
    const plain = [...keys.pid, ...keys.phone, ...keys.address].map((k) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(k);
      return b;
    });
    expect(plain.filter((b) => blob.includes(b))).toEqual([]);
    // And they are the list keys of the values: a PID's is the hash of its upper-case text.
    expect(keys.pid).toContain(listKey(String(records[97]![PID])));
  });
});

describe('without list keys the same people are named, by reading every record', () => {
  it('a list imported before list keys', () => {
    const dataset = Dataset.open(path);
    const want = named(dataset, readingAll(lists.matcher(listId)!)).people;
    appState.prepare('UPDATE suppression_lists SET key_hashes = NULL WHERE id = ?').run(listId);
    try {
      const older = lists.matcher(listId)!;
      expect(older.listKeys!()).toBeNull();
      expect(named(dataset, older)).toEqual({ people: want, readEvery: true });
    } finally {
      dataset.close();
    }
  });

  it('a list whose sealed keys were copied in from another home', async () => {
    const other = openAppState(join(dir, 'other-home'));
    try {
      const file = join(dir, 'list.csv');
      const otherLists = new SuppressionLists(other, () => engine);
      const id = (await otherLists.import(file, 'Elsewhere')).id;
      const sealed = other.prepare('SELECT key_hashes FROM suppression_lists WHERE id = ?').pluck().get(id) as Buffer;
      appState.prepare('UPDATE suppression_lists SET key_hashes = ? WHERE id = ?').run(sealed, listId);
      expect(lists.matcher(listId)!.listKeys!()).toBeNull();
    } finally {
      other.close();
    }
  });

  it('a dataset written before list keys', async () => {
    const file = join(dir, 'list.csv');
    const id = (await lists.import(file, 'Again')).id;
    const older = Dataset.open(copyWithMeta(path, join(dir, 'older.sqlite'), { [LIST_KEYS_KEY]: null }));
    const dataset = Dataset.open(path);
    try {
      const want = named(dataset, readingAll(lists.matcher(id)!)).people;
      expect(named(older, lists.matcher(id)!)).toEqual({ people: want, readEvery: true });
    } finally {
      older.close();
      dataset.close();
    }
  });
});
