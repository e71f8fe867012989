// The code book (src/shared/codebook.ts) against the real generator's output: every code in a
// generated dataset has a meaning, codes are unique, bands run in their natural order, and unknown
// codes sort after the known ones without being dropped.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatasetSql, quoteIdent } from '../support/datasetSql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEBOOK, codeLabel, codeRank, compareCodes } from '../../src/shared/codebook';
import { fieldByName } from '../../src/shared/fields';
import { STATES } from '../../src/shared/states';
import { generateDataset } from '../../src/core/generate';

let dir = '';
let db: Database.Database;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-codebook-'));
  const out = join(dir, 'people.sqlite');
  generateDataset({ rows: 20_000, seed: 5, out });
  db = openDatasetSql(out);
});

afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const distinct = (field: string) =>
  (db.prepare(`SELECT DISTINCT ${quoteIdent(field)} AS v FROM people`).all() as Array<{ v: string | number | null }>).map((r) => r.v);

/** The dollar amount a band label starts from: "Under $15,000" starts from 0. */
const lowerBound = (label: string) => (/^Under /.test(label) ? 0 : Number(/\$([\d,]+)/.exec(label)![1]!.replace(/,/g, '')));

describe('CODEBOOK', () => {
  it('covers only string fields of the catalog', () => {
    expect(Object.keys(CODEBOOK).length).toBeGreaterThan(40);
    for (const field of Object.keys(CODEBOOK)) expect(fieldByName(field)?.type, field).toBe('string');
  });

  it('gives every value of every coded field in a generated dataset a meaning', () => {
    const missing: string[] = [];
    for (const field of Object.keys(CODEBOOK)) {
      const values = distinct(field);
      expect(values.length, field).toBeGreaterThan(0);
      for (const v of values) if (v === null || codeLabel(field, v) === undefined) missing.push(`${field}=${JSON.stringify(v)}`);
    }
    expect(missing).toEqual([]);
  });

  it('has unique codes and a non-empty label for each', () => {
    for (const [field, codes] of Object.entries(CODEBOOK)) {
      expect(new Set(codes.map((c) => c.code)).size, field).toBe(codes.length);
      for (const c of codes) expect(c.label.trim(), `${field}=${c.code}`).not.toBe('');
    }
  });

  it('names income, education and ethnicity codes in words, never by the code itself', () => {
    for (const field of ['EHI', 'EHI_V2', 'EDUCATIONCD', 'ETHNICITYCD']) {
      expect(CODEBOOK[field]!.length, field).toBeGreaterThan(0);
      for (const c of CODEBOOK[field]!) {
        expect(c.label.trim(), `${field}=${c.code}`).not.toBe('');
        expect(c.label, `${field}=${c.code}`).not.toBe(c.code);
      }
    }
    expect(codeLabel('EHI', 'E')).toBe('$50,000–$74,999');
    expect(codeLabel('EDUCATIONCD', '3')).toBe("Bachelor's degree");
    expect(codeLabel('EDUCATIONCD', 3)).toBe("Bachelor's degree");
    expect(codeLabel('ETHNICITYCD', 'H')).toBe('Hispanic');
    expect(codeLabel('HOMEOWNERC', 'H')).toBe('Homeowner');
    expect(codeLabel('MARRIEDCD', 'M')).toBe('Married');
  });

  it('orders EHI A..L from the lowest income to the highest', () => {
    const ehi = CODEBOOK.EHI!;
    expect(ehi.map((c) => c.code)).toEqual('ABCDEFGHIJKL'.split(''));
    const bounds = ehi.map((c) => lowerBound(c.label));
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]!).toBeGreaterThan(bounds[i - 1]!);
    expect(ehi.at(-1)!.label).toMatch(/or more$/);
  });

  it('orders the other dollar bands the same way (EHI_V2 A..O, MRKTHOMEVAL A..S then renters)', () => {
    for (const [field, letters] of [
      ['EHI_V2', 'ABCDEFGHIJKLMNO'],
      ['MRKTHOMEVAL', 'ABCDEFGHIJKLMNOPQRS'],
    ] as const) {
      const bands = CODEBOOK[field]!.filter((c) => c.code !== '');
      expect(bands.map((c) => c.code)).toEqual(letters.split(''));
      const bounds = bands.map((c) => lowerBound(c.label));
      for (let i = 1; i < bounds.length; i++) expect(bounds[i]!, `${field} ${bands[i]!.code}`).toBeGreaterThan(bounds[i - 1]!);
    }
  });

  it('labels STATECD with the name of the record’s own STATE', () => {
    const pairs = db.prepare('SELECT DISTINCT STATE AS s, STATECD AS c FROM people').all() as Array<{ s: string; c: string }>;
    expect(pairs.length).toBe(51);
    for (const { s, c } of pairs) {
      expect(codeLabel('STATECD', c), c).toBe(STATES[s]);
      expect(codeLabel('STATE', s), s).toBe(STATES[s]);
    }
  });
});

describe('codeRank and compareCodes', () => {
  it('rank a code by its place in the natural order', () => {
    expect(codeRank('EHI', 'A')).toBe(0);
    expect(codeRank('EHI', 'L')).toBe(11);
    expect(codeRank('ehi', 'B')).toBe(1);
    expect(codeRank('EDUCATIONCD', 4)).toBe(3);
  });

  it('put codes the book does not know after the known ones, by code, and keep them', () => {
    expect(codeLabel('EHI', 'Z')).toBeUndefined();
    expect(codeRank('EHI', 'Z')).toBeGreaterThan(codeRank('EHI', 'L'));
    const sorted = ['Z', 'L', '', 'A', 'X', 'C'].sort(compareCodes('EHI'));
    expect(sorted).toEqual(['A', 'C', 'L', '', 'X', 'Z']);
    // '2' is known (Some college); the unknown after it, numbers by value.
    expect(['10', '9', 'B', '2'].sort(compareCodes('EDUCATIONCD'))).toEqual(['2', '9', '10', 'B']);
  });

  it('sort a real breakdown in natural order, not by letter or frequency', () => {
    const ehi = distinct('EHI') as string[];
    expect([...ehi].sort(compareCodes('EHI'))).toEqual(CODEBOOK.EHI!.map((c) => c.code).filter((c) => ehi.includes(c)));
    const religion = (distinct('RELIGIONCD') as string[]).sort(compareCodes('RELIGIONCD'));
    expect(religion.at(-1)).toBe('');
    expect(['05', '01', '03'].sort(compareCodes('GENERATION_CLSTRDCD'))).toEqual(['01', '03', '05']);
  });

  it('sort a field the book does not cover by code', () => {
    expect(codeLabel('FNAME', 'MARY')).toBeUndefined();
    expect(['B', 'A', 'C'].sort(compareCodes('FNAME'))).toEqual(['A', 'B', 'C']);
    expect([10, 2, 1].sort(compareCodes('HHNBR'))).toEqual([1, 2, 10]);
  });
});
