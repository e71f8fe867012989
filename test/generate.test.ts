// The generated dataset: deterministic, in order, every field in its documented range, and
// believable (state shares, households, names, phones).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIELDS, fieldIndex } from '../src/shared/fields';
import { generateDataset, generateRecords } from '../src/core/generate';
import { STATE_FACTS } from '../src/core/generate/data/states';
import { REFERENCE_YEAR } from '../src/core/generate/people';

const N = 40_000;
let records: Array<ReadonlyArray<string | number>>;
const col = (name: string) => {
  const i = fieldIndex(name);
  return (r: ReadonlyArray<string | number>) => r[i]!;
};
const PID = col('PID');
const HHID = col('HHID');
const STATE = col('STATE');
const AGE = col('AGE');
const DOB = col('DOB');
const GENDER = col('GENDER');
const MARRIED = col('MARRIEDCD');
const HHNBR = col('HHNBR');
const ADDRESS = col('ADDRESS');
const ZIP = col('ZIP');
const LNAME = col('LNAME');
const FNAME = col('FNAME');

beforeAll(() => {
  records = [...generateRecords(N, 42)];
});

describe('generator', () => {
  it('is deterministic: the same rows and seed give identical records; another seed differs', () => {
    const again = [...generateRecords(2000, 42)];
    const first = [...generateRecords(2000, 42)];
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(JSON.stringify([...generateRecords(2000, 43)])).not.toBe(JSON.stringify(first));
  });

  it('yields exactly N records in ascending (STATE, PID) order with unique 32-hex PIDs', () => {
    expect(records).toHaveLength(N);
    for (let i = 1; i < N; i++) {
      const a = records[i - 1]!;
      const b = records[i]!;
      expect(STATE(a) < STATE(b) || (STATE(a) === STATE(b) && PID(a) < PID(b))).toBe(true);
    }
    expect(new Set(records.map(PID)).size).toBe(N);
    expect(records.every((r) => /^[0-9A-F]{32}$/.test(PID(r) as string) && /^[0-9A-F]{96}$/.test(HHID(r) as string))).toBe(true);
  });

  it('fills every field with its JSON type, text in upper case, codes in their ranges', () => {
    for (const r of records.slice(0, 400)) {
      expect(r).toHaveLength(FIELDS.length);
      FIELDS.forEach((f, i) => {
        const v = r[i];
        if (f.type === 'string') {
          expect(typeof v, f.name).toBe('string');
          expect(v, f.name).toBe((v as string).toUpperCase());
        } else if (f.type === 'integer') expect(Number.isInteger(v) && (v as number) >= 0, f.name).toBe(true);
        else expect(Number.isFinite(v), f.name).toBe(true);
        if (f.group === 'interest_index') expect(v as number).toBeLessThanOrEqual(9);
        if (f.group === 'behaviour_flag') expect(['Y', '']).toContain(v);
        if (f.group === 'census' && f.name.startsWith('CENSPCT')) expect(v as number).toBeLessThanOrEqual(100);
        if (f.group === 'reserved') expect(v === '' || (['INTERNAL7', 'INTERNAL9'].includes(f.name) && /^[A-Z]$/.test(v as string)), f.name).toBe(true);
      });
      expect(['F', 'M']).toContain(GENDER(r));
      expect(['M', 'S']).toContain(MARRIED(r));
      expect(r[fieldIndex('ZIP')]).toMatch(/^\d{5}$/);
      expect(r[fieldIndex('Z4')]).toMatch(/^\d{4}$/);
    }
    const ms = records.map(col('MS_BOOKS')) as number[];
    expect(ms.filter((v) => v === 0).length / N).toBeGreaterThan(0.6);
  });

  it('spreads people over all 51 states by adult population (CA about 12%, WY about 0.2%)', () => {
    const counts = new Map<string, number>();
    for (const r of records) counts.set(STATE(r) as string, (counts.get(STATE(r) as string) ?? 0) + 1);
    expect(counts.size).toBe(51);
    expect(counts.get('CA')! / N).toBeCloseTo(0.118, 2);
    expect(counts.get('WY')! / N).toBeGreaterThan(0.001);
    expect(counts.get('WY')! / N).toBeLessThan(0.003);
    expect(counts.get('TX')!).toBeGreaterThan(counts.get('OH')!);
  });

  it('keeps ages adult, DOB consistent with AGE, genders about half each', () => {
    const ages = records.map(AGE) as number[];
    expect(Math.min(...ages)).toBeGreaterThanOrEqual(18);
    expect(Math.max(...ages)).toBeLessThanOrEqual(99);
    for (const r of records.slice(0, 5000)) {
      const dob = DOB(r) as string;
      expect(dob).toMatch(/^\d{4}(0[1-9]|1[0-2])$/);
      expect(REFERENCE_YEAR - 1 - Number(dob.slice(0, 4))).toBe(AGE(r));
    }
    const women = records.filter((r) => GENDER(r) === 'F').length / N;
    expect(women).toBeGreaterThan(0.46);
    expect(women).toBeLessThan(0.54);
    const over65 = ages.filter((a) => a >= 65).length / N;
    expect(over65).toBeGreaterThan(0.17);
    expect(over65).toBeLessThan(0.27);
  });

  it('groups people into households of 1 to 6 at one address, HHNBR = size, married couples both M', () => {
    const households = new Map<string, Array<ReadonlyArray<string | number>>>();
    for (const r of records) {
      const list = households.get(HHID(r) as string) ?? [];
      list.push(r);
      households.set(HHID(r) as string, list);
    }
    const sizes = new Set<number>();
    for (const members of households.values()) {
      sizes.add(members.length);
      expect(members.length).toBeLessThanOrEqual(6);
      for (const m of members) {
        expect(HHNBR(m)).toBe(members.length);
        expect(ADDRESS(m)).toBe(ADDRESS(members[0]!));
        expect(ZIP(m)).toBe(ZIP(members[0]!));
        expect(STATE(m)).toBe(STATE(members[0]!));
      }
      const married = members.filter((m) => MARRIED(m) === 'M').length;
      expect([0, 2]).toContain(married);
      const lastNames = new Set(members.map(LNAME));
      expect(lastNames.size).toBeLessThanOrEqual(members.length);
    }
    expect([...sizes].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const shared = [...households.values()].filter((m) => m.length > 1 && new Set(m.map(LNAME)).size === 1).length;
    expect(shared / [...households.values()].filter((m) => m.length > 1).length).toBeGreaterThan(0.6);
  });

  it('draws names by real frequency: SMITH and JOHNSON lead, thousands of distinct names', () => {
    const counts = new Map<string, number>();
    for (const r of records) counts.set(LNAME(r) as string, (counts.get(LNAME(r) as string) ?? 0) + 1);
    const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([n]) => n);
    expect(top).toContain('SMITH');
    expect(top).toContain('JOHNSON');
    expect(counts.size).toBeGreaterThan(3000);
    expect(new Set(records.map(FNAME)).size).toBeGreaterThan(800);
  });

  it('gives phones the area codes of the state and DNC flags only beside a phone', () => {
    for (const r of records.slice(0, 10000)) {
      const state = STATE(r) as string;
      for (const [p, d] of [['PHONE', 'DNC'], ['PHONE2', 'DNC2'], ['PHONE3', 'DNC3']]) {
        const phone = r[fieldIndex(p!)] as string;
        const dnc = r[fieldIndex(d!)] as string;
        if (phone === '') expect(dnc).toBe('');
        else {
          expect(phone).toMatch(/^\d{10}$/);
          expect(STATE_FACTS[state]!.areaCodes).toContain(Number(phone.slice(0, 3)));
          expect(['Y', '']).toContain(dnc);
        }
      }
    }
  });

  it('writes a real dataset file atomically with every record', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audience-desk-gen-'));
    try {
      const out = join(dir, 'd.sqlite');
      const result = generateDataset({ rows: 3000, seed: 5, out });
      expect(result.records).toBe(3000);
      const db = new Database(out, { readonly: true });
      expect((db.prepare('SELECT count(*) AS n FROM people').get() as { n: number }).n).toBe(3000);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes the leftovers of a killed writer to the same target, never a live one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audience-desk-gen-'));
    try {
      const out = join(dir, 'd.sqlite');
      const deadPid = 2 ** 22 + 12345; // above Linux's default pid_max: no such process
      const dead = [`${out}.building-${deadPid}`, `${out}.building-${deadPid}-journal`];
      const live = `${out}.building-${process.ppid}`;
      for (const f of [...dead, live]) writeFileSync(f, 'partial');
      generateDataset({ rows: 200, seed: 5, out });
      expect(dead.filter(existsSync)).toEqual([]);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(out)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
