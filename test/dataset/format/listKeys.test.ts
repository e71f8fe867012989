// List keys (listKeys.ts): each record's PID, phones and address as a suppression list writes them
// (src/shared/normalize.ts), hashed, so a list finds its candidates without reading every record. On real
// files whose phones and addresses are partly written in other forms: whichever way records reach
// the writer (with their values, as text alone, from the generator's worker), each state's keys are
// exactly the hashes of its records' normalised values; values already normalised store nothing; a
// file without keys, or with keys under other rules, has none to give; damage in a chunk is found.
import { appendAsImported } from '../../support/appendAsImported';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import { LIST_KEY_FIELDS, LIST_KEYS_KEY, listKey, type ListKeyField } from '../../../src/core/dataset/format/listKeys';
import { ChunkLayout } from '../../../src/core/dataset/codec/vectorChunks';
import { generateDataset, generateRecords } from '../../../src/core/generate';
import { normalizeAddress, normalizePhone, normalizePid, NORMALIZATION_RULES } from '../../../src/shared/normalize';
import { fieldIndex } from '../../../src/shared/fields';
import { copyWithMeta } from '../../support/datasetMeta';

const [PHONE, PHONE2, ADDRESS, ZIP] = ['PHONE', 'PHONE2', 'ADDRESS', 'ZIP'].map(fieldIndex) as [number, number, number, number];
const CHUNK = 256;

let dir: string;
let records: Array<Array<string | number>>;
let byValues: string;
let byText: string;

/** The key of each field of LIST_KEY_FIELDS for a record, by the list's rules (not the writer's code). */
function expectedKey(field: ListKeyField, r: ReadonlyArray<string | number>): number {
  const v = r[fieldIndex(field)]!;
  if (field === 'PID') return listKey(normalizePid(v));
  if (field === 'ADDRESS') return listKey(normalizeAddress(v, r[ZIP]!));
  return v === '' ? 0 : listKey(normalizePhone(v));
}

function expectKeysOfRecords(path: string): void {
  const dataset = Dataset.open(path);
  try {
    for (const range of dataset.stateCounts()) {
      const rows = dataset.fullRows(Array.from({ length: range.count }, (_, k) => range.first + k));
      for (const field of LIST_KEY_FIELDS)
        expect([...dataset.listKeys(field, range)!], `${field} in ${range.state}`).toEqual(rows.map((r) => expectedKey(field, r)));
    }
  } finally {
    dataset.close();
  }
}

const storedChunks = (path: string): Record<string, number> => {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare('SELECT name, count(*) AS n FROM list_keys GROUP BY name').all() as Array<{ name: string; n: number }>;
  db.close();
  return Object.fromEntries(rows.map((r) => [r.name, r.n]));
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-list-keys-'));
  records = [...generateRecords(3000, 21)].map((r) => [...r]);
  // Records 1000-1099 (within chunks 3 and 4): phones and addresses as people write them.
  for (const r of records.slice(1000, 1100)) {
    const p = String(r[PHONE]);
    if (p !== '') r[PHONE] = `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`;
    r[PHONE2] = r[PHONE2] === '' ? 'not a phone' : `+1 ${String(r[PHONE2])} x12`;
    r[ADDRESS] = `${String(r[ADDRESS]).toLowerCase().replace(/ st\b/, ' Street')}, #3`;
    r[ZIP] = `${String(r[ZIP])}-1234`;
  }
  byValues = join(dir, 'values.sqlite');
  const writer = new DatasetWriter(byValues, {}, undefined, new ChunkLayout(CHUNK));
  for (const r of records) writer.append(r);
  writer.finish();
  byText = join(dir, 'text.sqlite');
  const texts = new DatasetWriter(byText, {}, undefined, new ChunkLayout(CHUNK));
  const columns = texts.newColumnSet();
  appendAsImported(texts, records);
  for (const r of records) columns.push(r);
  texts.finish(columns.finished());
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('list keys', () => {
  it("are the hashes of each record normalised, whether the writer had its values or, as the import gives them, its text and its reader's extras", () => {
    expectKeysOfRecords(byValues);
    expectKeysOfRecords(byText);
    expect(storedChunks(byText)).toEqual(storedChunks(byValues));
  });

  it('are the same from the generator worker, whose records are normalised but for some addresses', () => {
    const out = join(dir, 'generated.sqlite');
    generateDataset({ rows: 2000, seed: 8, out, vectorChunk: CHUNK });
    expectKeysOfRecords(out);
    // Its PIDs and phones are written as a list writes them: no chunk of theirs differs from the vectors.
    expect(Object.keys(storedChunks(out))).toEqual(['ADDRESS']);
  });

  it('store a chunk only where a value is not written as a list writes it', () => {
    const messy = new Set<number>();
    const dataset = Dataset.open(byValues);
    try {
      // The positions of the rewritten records: their phones carry punctuation.
      const all = dataset.fullRows(Array.from({ length: records.length }, (_, k) => k));
      all.forEach((r, p) => {
        if (String(r[PHONE2]).includes('x12') || r[PHONE2] === 'not a phone') messy.add(Math.floor(p / CHUNK));
      });
    } finally {
      dataset.close();
    }
    const chunks = storedChunks(byValues);
    expect(chunks.PID).toBeUndefined();
    expect(chunks.PHONE2).toBe(messy.size);
    expect(chunks.PHONE).toBeLessThanOrEqual(messy.size);
    expect(chunks.ADDRESS).toBeGreaterThanOrEqual(messy.size);
  });

  it('are not given by a file written before them, nor one written under other normalisation rules', () => {
    for (const [name, value] of [
      ['before.sqlite', null],
      ['other-rules.sqlite', JSON.stringify({ rules: NORMALIZATION_RULES + 1, fields: LIST_KEY_FIELDS })],
    ] as const) {
      const dataset = Dataset.open(copyWithMeta(byValues, join(dir, name), { [LIST_KEYS_KEY]: value }));
      try {
        expect(dataset.listKeys('PHONE', dataset.stateRange('CA'))).toBeNull();
      } finally {
        dataset.close();
      }
    }
  });

  it('found damaged by the verify and by a read', () => {
    const damaged = copyWithMeta(byValues, join(dir, 'damaged.sqlite'), {});
    const db = new Database(damaged);
    const { chunk } = db.prepare("SELECT chunk FROM list_keys WHERE name = 'PHONE2' ORDER BY chunk LIMIT 1").get() as { chunk: number };
    db.prepare("UPDATE list_keys SET data = substr(data, 1, length(data) - 2) || x'0000' WHERE name = 'PHONE2' AND chunk = ?").run(chunk);
    db.close();
    const dataset = Dataset.open(damaged);
    try {
      const range = dataset.stateCounts().find((r) => r.first <= chunk * CHUNK && chunk * CHUNK < r.first + r.count)!;
      expect(() => dataset.listKeys('PHONE2', range)).toThrow(/damaged \(chunk \d+ of the vector of list key PHONE2 fails its checksum\)/);
      expect(() => [...dataset.verifySteps()]).toThrow(/list key PHONE2 fails its checksum/);
    } finally {
      dataset.close();
    }
  });
});
