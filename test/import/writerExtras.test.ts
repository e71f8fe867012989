// The import's readers work out what the dataset writer needs of each record besides its text (its
// HHID's fingerprint, its list keys: recordExtras.ts), and the write phase hands the text on as
// bytes. The file must be the one the writer makes from the records' values: the same list keys
// and the same households told apart under one HHID hash. The rows carry phones written as people
// write them (so their keys differ from the stored values') and two HHIDs of one state with the
// same 32-bit hash (so the households must be told apart by fingerprint).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { stringHash } from '../../src/core/dataset/codec/columnVector';
import { HHID_COLLISIONS_KEY, HHID_SPLITS_KEY } from '../../src/core/dataset/format/householdCollisions';
import { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { generateStored } from '../../src/core/generate/generateRecords';
import { importFiles } from '../../src/core/import/importFiles';
import { fieldIndex } from '../../src/shared/fields';
import { openDatasetSql } from '../support/datasetSql';
import { readRecords, tempDir, writeCsv } from './helpers';

const dir = tempDir('audience-desk-import-extras-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STATE = fieldIndex('STATE');
const PID = fieldIndex('PID');
const HHID = fieldIndex('HHID');
const PHONE = fieldIndex('PHONE');

/** Two different HHIDs with the same stringHash (a birthday search over a few hundred thousand). */
function collidingHhids(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const hhid = `HHX${i}`;
    const hash = stringHash(hhid);
    const before = seen.get(hash);
    if (before !== undefined) return [before, hhid];
    seen.set(hash, hhid);
  }
}

/** What a dataset file holds of list keys and households. */
function extrasOf(path: string): { listKeys: unknown[]; collisions: string; splits: string } {
  const db = openDatasetSql(path);
  try {
    const meta = (key: string): string => db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string;
    return {
      listKeys: db.prepare('SELECT name, chunk, crc, data FROM list_keys ORDER BY name, chunk').raw().all(),
      collisions: meta(HHID_COLLISIONS_KEY),
      splits: meta(HHID_SPLITS_KEY),
    };
  } finally {
    db.close();
  }
}

it("stores the list keys and households the writer works out from the records' values", async () => {
  const records = [...generateStored(3_000, 41)].map(({ record }) => [...record]);
  records.forEach((values, i) => {
    const phone = String(values[PHONE] ?? '');
    if (i % 3 === 0 && /^[0-9]{10}$/.test(phone)) values[PHONE] = `(${phone.slice(0, 3)}) ${phone.slice(3, 6)}-${phone.slice(6)}`;
  });
  // Two records of one state get the colliding HHIDs: two households under one hash.
  const [first, second] = collidingHhids();
  const state = records[100]![STATE];
  const other = records.findLastIndex((values) => values[STATE] === state);
  expect(other).toBeGreaterThan(100);
  records[100]![HHID] = first;
  records[other]![HHID] = second;
  const csv = join(dir, 'rows.csv');
  writeCsv(csv, records);
  const imported = join(dir, 'imported.sqlite');
  await importFiles({ files: [csv], out: imported });

  // The writer given the same records by value, in the imported file's order, with their PID ranks.
  const stored = readRecords(imported);
  const rankOf = new Map<unknown, number>();
  for (const s of new Set(stored.map((values) => values[STATE])))
    stored
      .filter((values) => values[STATE] === s)
      .map((values) => values[PID] as string)
      .sort()
      .forEach((pid, rank) => rankOf.set(pid, rank));
  const byValue = join(dir, 'by-value.sqlite');
  const writer = new DatasetWriter(byValue);
  for (const values of stored) writer.append(values, rankOf.get(values[PID]));
  writer.finish();

  const expected = extrasOf(byValue);
  const got = extrasOf(imported);
  // The case is there to be caught: keys that differ from the stored values, a hash with two households.
  expect(expected.listKeys.length).toBeGreaterThan(0);
  expect(JSON.parse(expected.collisions)).toEqual([stringHash(first)]);
  expect(JSON.parse(expected.splits)).toEqual([[expect.any(Number), 1]]); // the later HHID's one record
  expect(got).toEqual(expected);
});
