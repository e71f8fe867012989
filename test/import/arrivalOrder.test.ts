// The import builds the dataset's vectors on its reading thread in the order rows arrive, and, for
// rows in any other order, puts them in (STATE, PID) order afterwards (permuteColumn) while the
// staged records are copied SQLite to SQLite. The result must be the dataset the writer makes from
// the same final records in order: same records, same vectors byte for byte (dictionaries in the
// same code order), same state ranges, same answers. Checked on generated records (every field
// filled as the app fills it), shuffled, with PIDs repeated in and across files.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatasetSql } from '../support/datasetSql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../../src/core/createCore';
import { buildStringColumn, ColumnSet } from '../../src/core/dataset/write/columnSet';
import { needsRebuild, permuteColumn } from '../../src/core/dataset/write/columnOrder';
import { VectorScratch } from '../../src/core/dataset/write/vectorScratch';
import type { RecordValues } from '../../src/core/dataset/codec/recordFormat';
import { generateRecords } from '../../src/core/generate';
import { importFiles, type ImportSummary } from '../../src/core/import/importFiles';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { FIELDS, fieldIndex } from '../../src/shared/fields';
import { embeddedEngineOf, searchRecords } from '../support/audienceQueries';
import { dumpDataset as dump, readRejects, tempDir, writeCsv } from './helpers';

const PID = fieldIndex('PID');
const CITY = fieldIndex('CITY');
const AGE = fieldIndex('AGE');
const GENDER = fieldIndex('GENDER');
const STATE = fieldIndex('STATE');

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = items.slice();
  let x = seed;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

let dir: string;
let sorted: ImportSummary;
let shuffledImport: ImportSummary;
let finalRecords: RecordValues[];

beforeAll(async () => {
  dir = tempDir('audience-desk-import-arrival-');
  const records = [...generateRecords(3000, 11)] as RecordValues[];
  // Earlier versions of 400 people, with other values (another state for some: a PID may move),
  // read before their final version; and 100 final versions of people read twice, the same row.
  const earlier = records.slice(0, 400).map((r, i) => {
    const copy = r.slice();
    copy[CITY] = `OLD CITY ${i % 7}`;
    copy[AGE] = 18 + (i % 60);
    copy[GENDER] = r[GENDER] === 'F' ? 'M' : 'F';
    if (i % 5 === 0) copy[STATE] = 'WY';
    return copy;
  });
  const again = records.slice(1000, 1100);
  finalRecords = records;
  const inOrder = join(dir, 'sorted.csv');
  writeCsv(inOrder, records);
  // Two files: the earlier versions and half the rest, shuffled; then the other half and the
  // repeats, shuffled. The final version of each PID is always read last.
  const all = shuffled(records, 5);
  const firstFile = join(dir, 'first.csv');
  const secondFile = join(dir, 'second.csv');
  const finalOfEarlier = new Set(earlier.map((r) => r[PID]));
  const firstRows = shuffled([...earlier, ...all.filter((r, i) => i % 2 === 0 && !finalOfEarlier.has(r[PID]))], 6);
  // Rows read twice alike (a PID repeated with the same values) count as replaced too.
  const secondRows = shuffled([...all.filter((r, i) => i % 2 === 1 || finalOfEarlier.has(r[PID])), ...again], 7);
  writeCsv(firstFile, firstRows);
  writeCsv(secondFile, secondRows);
  sorted = await importFiles({ files: [inOrder], out: join(dir, 'sorted.sqlite') });
  shuffledImport = await importFiles({ files: [firstFile, secondFile], out: join(dir, 'shuffled.sqlite') });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('vectors built in arrival order, then put in (STATE, PID) order', () => {
  it('counts the replaced rows and keeps the one read last', () => {
    expect(sorted).toMatchObject({ read: 3000, imported: 3000, rejected: 0, replaced: 0, records: 3000 });
    expect(shuffledImport).toMatchObject({ read: 3500, imported: 3500, rejected: 0, replaced: 500, records: 3000 });
    expect(readRejects(shuffledImport.rejectsPath)).toEqual([]);
  });

  it('writes the same dataset as the sorted import of the final rows: records, vectors and dictionaries, states', () => {
    expect(dump(shuffledImport.out)).toEqual(dump(sorted.out));
  });

  it('answers every query the same', async () => {
    const a = new Core({ homeDir: join(dir, 'home-a'), datasetPath: sorted.out });
    const b = new Core({ homeDir: join(dir, 'home-b'), datasetPath: shuffledImport.out });
    try {
      const requests = [
        { state: 'CA', filters: [] },
        { state: 'WY', filters: [['GENDER', ['F']]] },
        {
          state: 'TX',
          filters: [
            ['GENDER', ['M']],
            ['AGE', ['25-29', '45-49', '60+']],
          ],
        },
        { state: 'NY', filters: [['MARRIEDCD', ['M']]] },
        { state: 'FL', filters: [['CITY', ['MIAMI', 'OLD CITY 3']]] },
      ] as const;
      let total = 0;
      for (const r of requests) {
        const request = { ...r, filters: r.filters.map(([f, v]) => [f, [...v]]), limit: 100, skip: 0 };
        const expected = await searchRecords(a, request);
        total += expected.total;
        expect(await searchRecords(b, request)).toEqual(expected);
        const audience = normalizeAudienceRequest({ state: r.state, filters: request.filters as never });
        for (const field of [GENDER, CITY, fieldIndex('MARRIEDCD')])
          expect(embeddedEngineOf(b).valueCounts(audience, field, 200)).toEqual(embeddedEngineOf(a).valueCounts(audience, field, 200));
      }
      expect(total).toBeGreaterThan(500);
    } finally {
      await a.shutdown();
      await b.shutdown();
    }
  });

  it('holds the final version of every PID', () => {
    const db = openDatasetSql(shuffledImport.out);
    try {
      const texts = db.prepare('SELECT record FROM records ORDER BY _pos').pluck().all() as string[];
      const byPid = new Map(texts.map((t) => [(JSON.parse(t) as RecordValues)[PID], t]));
      for (const r of finalRecords) expect(byPid.get(r[PID])).toBe(JSON.stringify(r));
    } finally {
      db.close();
    }
  });
});

describe('permuteColumn', () => {
  // Built in arrival order with rows that are then dropped, with a dictionary limit low enough that
  // fields pass it: every column must equal the one built from the final rows in order, or say
  // that it must be built again (needsRebuild) and then equal it.
  it('gives the column the final rows would give, or asks for it to be built again', () => {
    const limit = 40;
    const records = [...generateRecords(2000, 4)] as RecordValues[];
    const dropped = records
      .slice(0, 300)
      .map((r, i) => r.map((v, f) => (FIELDS[f]!.type === 'string' && f !== STATE && f !== PID ? `GONE ${i}` : v)));
    const arrival = shuffled([...records.map((r, i) => ({ r, final: true, i })), ...dropped.map((r) => ({ r, final: false, i: -1 }))], 3);
    const built = new ColumnSet(limit);
    for (const a of arrival) built.push(a.r);
    const order = new Uint32Array(records.length);
    arrival.forEach((a, seq) => {
      if (a.final) order[a.i] = seq;
    });
    const reference = new ColumnSet(limit);
    for (const r of records) reference.push(r);
    const expected = reference.finish();
    let rebuilt = 0;
    built.finish().forEach((column, k) => {
      if (needsRebuild([column], true)) {
        rebuilt++;
        expect(
          buildStringColumn(
            column.field,
            records.map((r) => r[column.field] as string),
            limit,
          ),
        ).toEqual(expected[k]);
      } else expect(permuteColumn([column], order, limit)).toEqual(expected[k]);
    });
    expect(rebuilt).toBeGreaterThan(0);
  });

  it('gives the same columns in memory kept from one field to the next (VectorScratch)', () => {
    const limit = 40;
    const records = [...generateRecords(1500, 9)] as RecordValues[];
    const arrival = shuffled(
      records.map((r, i) => ({ r, i })),
      5,
    );
    // Two readers' parts, so that joining them (concatenated) uses kept memory too.
    const halves = [new ColumnSet(limit), new ColumnSet(limit)];
    arrival.forEach((a, seq) => halves[seq < 700 ? 0 : 1]!.push(a.r));
    const order = new Uint32Array(records.length);
    arrival.forEach((a, seq) => (order[a.i] = seq));
    const [first, second] = halves.map((h) => h.finish());
    const scratch = new VectorScratch();
    // Wide fields before narrow ones and back: each use's memory holds another field's values when handed out again.
    const fields = [...first!.keys(), ...[...first!.keys()].reverse()];
    for (const k of fields) {
      const parts = [first![k]!, second![k]!];
      const kept = permuteColumn(parts, order, limit, scratch.allocate);
      expect(kept).toEqual(permuteColumn(parts, order, limit));
    }
  });

  it('merges the parts two readers built, each with its own dictionary or hashes', () => {
    const limit = 40;
    // Arrival a of reader 0 is a; of reader 1, 300 + a. The final order takes every third arrival.
    const order = Uint32Array.from({ length: 200 }, (_, i) => (i * 3 * 7) % 600);
    const finalOf = (values: string[]): string[] => Array.from(order, (a) => values[a]!);
    const cases: Record<string, [string[], string[]]> = {
      'two dictionaries, their union past the limit': [
        Array.from({ length: 300 }, (_, i) => `A${i % 37}`),
        Array.from({ length: 300 }, (_, i) => `B${i % 37}`),
      ],
      'two dictionaries sharing values': [
        Array.from({ length: 300 }, (_, i) => `V${i % 25}`),
        Array.from({ length: 300 }, (_, i) => `V${(i * 7) % 35}`),
      ],
      'a dictionary and a part past the limit (hashes)': [
        Array.from({ length: 300 }, (_, i) => `A${i % 10}`),
        Array.from({ length: 300 }, (_, i) => `B${i}`),
      ],
    };
    for (const [name, [first, second]] of Object.entries(cases)) {
      const parts = [buildStringColumn(CITY, first, limit), buildStringColumn(CITY, second, limit)];
      const merged = permuteColumn(parts, order, limit);
      expect({ name, column: merged }).toEqual({ name, column: buildStringColumn(CITY, finalOf([...first, ...second]), limit) });
      expect(merged.encoding).toBe(name.includes('past the limit') ? 'hash' : 'dict');
    }
    // Integer parts of different kinds: a negative value in one, a value past 2^31 in the other.
    const ints = [Int32Array.from({ length: 300 }, (_, i) => i - 5), Uint32Array.from({ length: 300 }, (_, i) => i * 16_000_000)];
    const column = (data: Int32Array | Uint32Array, kind: 'i32' | 'u32') => ({
      field: AGE,
      encoding: 'value' as const,
      kind,
      data,
      dict: null,
    });
    const merged = permuteColumn([column(ints[0]!, 'i32'), column(ints[1]!, 'u32')], order);
    const values = Array.from(order, (a) => (a < 300 ? ints[0]![a]! : ints[1]![a - 300]!));
    expect(Array.from(merged.data)).toEqual(values);
    expect(merged.kind).toBe(
      values.some((v) => v < 0) && values.some((v) => v > 0x7fffffff) ? 'f64' : values.some((v) => v < 0) ? 'i32' : 'u32',
    );
  });
});
