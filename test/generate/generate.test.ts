// The dataset generator, tested on its real output: determinism, order, field types and ranges,
// state shares, households, phones, ages and names, and a real dataset file.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatasetSql } from '../support/datasetSql';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIELDS, fieldIndex } from '../../src/shared/fields';
import { generateDataset, generateRecords } from '../../src/core/generate';
import { apportion, STATE_CODES } from '../../src/core/generate/apportion';
import { stateAreaCodes } from '../../src/core/generate/areaCodes';
import { STATE_ADULTS } from '../../src/core/generate/data/stateAdults';
import { geography } from '../../src/core/generate/geography';
import { ageAt } from '../../src/core/generate/people';

type Rec = Array<string | number>;
const ROWS = 50_000;
let records: Rec[] = [];
const at = (name: string) => {
  const i = fieldIndex(name);
  if (i < 0) throw new Error(name);
  return i;
};
const col = (name: string) => records.map((r) => r[at(name)]);
const share = (values: unknown[], pred: (v: unknown) => boolean) => values.filter(pred).length / values.length;

beforeAll(() => {
  records = [...generateRecords(ROWS, 20260101)];
});

describe('generateRecords', () => {
  it('yields exactly `rows` records of every field', () => {
    expect(records).toHaveLength(ROWS);
    for (const r of records) expect(r).toHaveLength(FIELDS.length);
    expect([...generateRecords(0, 1)]).toEqual([]);
    expect([...generateRecords(7, 1)]).toHaveLength(7);
  });

  it('is deterministic: the same rows and seed give byte-identical records, another seed differs', () => {
    const a = JSON.stringify([...generateRecords(3000, 99)]);
    expect(JSON.stringify([...generateRecords(3000, 99)])).toBe(a);
    expect(JSON.stringify([...generateRecords(3000, 100)])).not.toBe(a);
  });

  it('comes out in ascending (STATE, PID) order with unique PIDs', () => {
    const state = at('STATE');
    const pid = at('PID');
    for (let i = 1; i < records.length; i++) {
      const [a, b] = [records[i - 1]!, records[i]!];
      const ordered = a[state]! < b[state]! || (a[state] === b[state] && a[pid]! < b[pid]!);
      if (!ordered) throw new Error(`out of order at ${i}: ${a[state]} ${a[pid]} then ${b[state]} ${b[pid]}`);
    }
    expect(new Set(col('PID')).size).toBe(ROWS);
  });

  it('gives every field the type the catalog declares', () => {
    FIELDS.forEach((f, i) => {
      for (const r of records) {
        const v = r[i];
        const ok =
          f.type === 'string'
            ? typeof v === 'string'
            : f.type === 'integer'
              ? Number.isInteger(v)
              : typeof v === 'number' && Number.isFinite(v);
        if (!ok) throw new Error(`${f.name} = ${JSON.stringify(v)} is not ${f.type}`);
      }
    });
  });

  it('keeps text upper case and identifiers in their documented shapes', () => {
    FIELDS.forEach((f, i) => {
      if (f.type !== 'string') return;
      for (const r of records)
        if ((r[i] as string) !== (r[i] as string).toUpperCase()) throw new Error(`${f.name} not upper case: ${r[i]}`);
    });
    const shapes: Record<string, RegExp> = {
      PID: /^[0-9A-F]{32}$/,
      HHID: /^[0-9A-F]{96}$/,
      GENDER: /^[FM]$/,
      DOB: /^(19|20)\d\d(0[1-9]|1[0-2])$/,
      ADDRID: /^\d+$/,
      HOUSE: /^\d+$/,
      ZIP: /^\d{5}$/,
      Z4: /^\d{4}$/,
      DPC: /^\d{2}$/,
      CRTE: /^[CR]\d{3}$/,
      DPV: /^[YSD]$/,
      VACANT: /^[YN]$/,
      STATECD: /^\d{2}$/,
      CNTYCD: /^\d{3}$/,
      CENSUSTRACT: /^\d{6}$/,
      CENSUSBLCK: /^[1-9]\d{3}$/,
      CBSA: /^(\d{5})?$/,
      MSA: /^(\d{4})?$/,
      CNTYSIZECD: /^[ABCD]$/,
      GEOLEVEL: /^[BTZ]$/,
      PHONE: /^(\d{10})?$/,
      PHONE2: /^(\d{10})?$/,
      PHONE3: /^(\d{10})?$/,
      DNC: /^Y?$/,
      DNC2: /^Y?$/,
      DNC3: /^Y?$/,
      MARRIEDCD: /^[MS]$/,
      YRBLD: /^((19|20)\d\d)?$/,
      SUFFIX: /^(|JR|SR|II|III|IV)$/,
      MNAME: /^[A-Z]*$/,
      FNAME: /^[A-Z]+$/,
      LNAME: /^[A-Z]+$/,
      CITY: /^[A-Z0-9][A-Z0-9 .'-]*$/,
      INTERNAL7: /^[A-Z]$/,
      INTERNAL9: /^[A-Z]$/,
    };
    for (const [name, shape] of Object.entries(shapes))
      for (const v of col(name)) if (!shape.test(String(v))) throw new Error(`${name} = ${v}`);
    for (const f of FIELDS)
      if (/^INTERNAL\d*$/.test(f.name) && !['INTERNAL7', 'INTERNAL9'].includes(f.name)) expect(new Set(col(f.name))).toEqual(new Set(['']));
    expect(share(col('MNAME'), (v) => String(v).length === 1)).toBeGreaterThan(0.4);
    expect(share(col('SUFFIX'), (v) => v === '')).toBeGreaterThan(0.95);
    for (const r of records) if (r[at('SUFFIX')] !== '') expect(r[at('GENDER')]).toBe('M');
  });

  it('keeps scores, flags and census values in their documented ranges', () => {
    FIELDS.forEach((f, i) => {
      const values = records.map((r) => r[i]);
      if (f.group === 'interest_index')
        expect(
          values.every((v) => (v as number) >= 0 && (v as number) <= 9),
          f.name,
        ).toBe(true);
      if (f.group === 'mail_order_score') {
        expect(
          values.every((v) => (v as number) >= 0 && (v as number) <= 20),
          f.name,
        ).toBe(true);
        expect(
          share(values, (v) => v === 0),
          f.name,
        ).toBeGreaterThan(0.4);
      }
      if (f.group === 'behaviour_flag')
        expect(
          values.every((v) => v === 'Y' || v === ''),
          f.name,
        ).toBe(true);
      if (f.group === 'census' && f.name.startsWith('CENSPCT_'))
        expect(
          values.every((v) => (v as number) >= 0 && (v as number) <= 100),
          f.name,
        ).toBe(true);
    });
    // Flag rates differ from field to field, and no field is all one value.
    const flagRates = FIELDS.flatMap((f, i) =>
      f.group === 'behaviour_flag'
        ? [
            share(
              records.map((r) => r[i]),
              (v) => v === 'Y',
            ),
          ]
        : [],
    );
    expect(Math.min(...flagRates)).toBeGreaterThan(0.005);
    expect(Math.max(...flagRates)).toBeLessThan(0.95);
    expect(new Set(flagRates.map((r) => r.toFixed(2))).size).toBeGreaterThan(20);
    const sum = (names: string[], r: Rec) => names.reduce((s, n) => s + (r[at(n)] as number), 0);
    const race = ['WHITE', 'BLACK', 'AMERIND', 'ASIAN', 'PACISL', 'OTHRACE', 'MULTIRACE'].map((x) => `CENSPCT_POP_${x}`);
    const ages = ['1824', '2534', '3544', '4554', '5564'].map((x) => `CENSPCT_ADULT_AGE${x}`).concat('CENSPCT_ADULT_AGEGE65');
    for (const r of records) {
      const medAge = r[at('CENS_POP_MEDAGE')] as number;
      const hhSize = r[at('CENS_HH_AVGSIZE')] as number;
      if (
        sum(race, r) !== 100 ||
        sum(ages, r) !== 100 ||
        sum(['CENSPCT_HU_OWNED', 'CENSPCT_HU_RENTED'], r) !== 100 ||
        medAge < 18 ||
        medAge > 65 ||
        hhSize < 150 ||
        hhSize > 420
      )
        throw new Error(`census values of ZIP ${r[at('ZIP')]} out of range`);
    }
    // Census values are the ZIP's: everyone in a ZIP agrees.
    const byZip = new Map<string, string>();
    const census = FIELDS.flatMap((f, i) => (f.group === 'census' ? [i] : []));
    for (const r of records) {
      const key = census.map((i) => r[i]).join(',');
      expect(byZip.get(r[at('ZIP')] as string) ?? key).toBe(key);
      byZip.set(r[at('ZIP')] as string, key);
    }
  });

  it('apportions people to states by adult population, all 51 present', () => {
    const counts = new Map<string, number>();
    for (const s of col('STATE')) counts.set(s as string, (counts.get(s as string) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(apportion(ROWS).filter(([, n]) => n > 0)));
    expect(counts.get('CA')! / ROWS).toBeGreaterThan(0.11);
    expect(counts.get('CA')! / ROWS).toBeLessThan(0.125);
    expect(counts.get('WY')! / ROWS).toBeGreaterThan(0.0012);
    expect(counts.get('WY')! / ROWS).toBeLessThan(0.0025);
    expect(STATE_CODES).toHaveLength(51);
    for (const rows of [1000, 1234, 5000]) {
      const split = apportion(rows);
      expect(split.reduce((s, [, n]) => s + n, 0)).toBe(rows);
      expect(split.every(([, n]) => n >= 1)).toBe(true);
    }
    // STATECD is the state's FIPS code; a ZIP always has the same city and county.
    const zipPlace = new Map<string, string>();
    for (const r of records) {
      expect(r[at('STATECD')]).toBe(STATE_ADULTS[r[at('STATE')] as string]![1]);
      const place = `${r[at('CITY')]}|${r[at('CNTYCD')]}|${r[at('STATE')]}`;
      expect(zipPlace.get(r[at('ZIP')] as string) ?? place).toBe(place);
      zipPlace.set(r[at('ZIP')] as string, place);
    }
    // People are spread by ZIP population: the big ZIPs (30,000+ people, about one in eight) hold
    // far more than their number's share of the file.
    const zips = [...geography().values()].flatMap((g) => g.zips);
    const big = new Set(zips.filter((z) => z.population >= 30_000).map((z) => z.zip));
    const peopleShare = share(col('ZIP'), (z) => big.has(z as string));
    expect(peopleShare).toBeGreaterThan(0.3);
    expect(peopleShare).toBeGreaterThan((3 * big.size) / zips.length);
    expect(zipPlace.size).toBeGreaterThan(5000);
  });

  it('groups people into households of 1 to 6 at one address in one state', () => {
    const shared = [
      'ADDRID',
      'ADDRESS',
      'HOUSE',
      'PREDIR',
      'STREET',
      'STRTYPE',
      'POSTDIR',
      'APTTYPE',
      'APTNB',
      'CITY',
      'STATE',
      'ZIP',
      'Z4',
      'LATITUDE',
      'LONGITUDE',
      'HHNBR',
      'LOR',
      'HOMEOWNERC',
      'DWELLTYPE',
      'EHI',
    ].map(at);
    const households = new Map<string, number[]>();
    records.forEach((r, i) => {
      const list = households.get(r[at('HHID')] as string) ?? [];
      list.push(i);
      households.set(r[at('HHID')] as string, list);
    });
    let sameLast = 0;
    const sizes = new Map<number, number>();
    for (const members of households.values()) {
      const size = members.length;
      sizes.set(size, (sizes.get(size) ?? 0) + 1);
      const head = records[members[0]!]!;
      const married = members.filter((m) => records[m]![at('MARRIEDCD')] === 'M').length;
      // `head` is the member with the lowest PID. Members are not neighbours in the file: PIDs are
      // dealt out regardless of household (test/generate/order.test.ts).
      const oneAddress = members.every((m) => shared.every((i) => records[m]![i] === head[i]));
      if (size > 6 || head[at('HHNBR')] !== size || !oneAddress || (married !== 0 && married !== 2))
        throw new Error(
          `household ${head[at('HHID')]}: size ${size}, HHNBR ${head[at('HHNBR')]}, married ${married}, one address ${oneAddress}`,
        );
      sameLast += members.filter((m) => records[m]![at('LNAME')] === head[at('LNAME')]).length;
    }
    expect(sameLast / ROWS).toBeGreaterThan(0.8);
    expect(sizes.get(1)! + sizes.get(2)!).toBeGreaterThan(households.size * 0.6);
    expect(sizes.get(6) ?? 0).toBeGreaterThan(0);
    expect(share(col('MARRIEDCD'), (v) => v === 'M')).toBeGreaterThan(0.35);
  });

  it('puts DNC only beside a phone, later phones only after earlier ones, area codes of the state', () => {
    const codes = new Map(STATE_CODES.map((s) => [s, new Set(stateAreaCodes(s))]));
    for (const r of records) {
      const [p1, p2, p3] = ['PHONE', 'PHONE2', 'PHONE3'].map((n) => r[at(n)] as string);
      ['', '2', '3'].forEach((k) => {
        if (r[at(`DNC${k}`)] === 'Y') expect(r[at(`PHONE${k}`)]).not.toBe('');
      });
      if (p2) expect(p1).not.toBe('');
      if (p3) expect(p2).not.toBe('');
      for (const p of [p1, p2, p3])
        if (p) expect(codes.get(r[at('STATE')] as string)!.has(p.slice(0, 3)), `${p} in ${r[at('STATE')]}`).toBe(true);
    }
    const phone = col('PHONE');
    expect(share(phone, (v) => v !== '')).toBeGreaterThan(share(col('PHONE2'), (v) => v !== ''));
    expect(share(col('DNC'), (v) => v === 'Y')).toBeGreaterThan(0.1);
  });

  it('draws ages from the US adult distribution, with DOB consistent with AGE', () => {
    const age = col('AGE') as number[];
    for (const r of records) expect(ageAt(r[at('DOB')] as string)).toBe(r[at('AGE')]);
    expect(Math.min(...age)).toBe(18);
    expect(Math.max(...age)).toBeLessThanOrEqual(100);
    const band = (lo: number, hi: number) => share(age, (a) => (a as number) >= lo && (a as number) <= hi);
    expect(band(18, 24)).toBeCloseTo(0.12, 1);
    expect(band(25, 34)).toBeCloseTo(0.175, 1);
    expect(band(65, 100)).toBeCloseTo(0.22, 1);
    expect(share(col('GENDER'), (g) => g === 'F')).toBeCloseTo(0.5, 1);
  });

  it('uses real name frequencies: SMITH about 1%, then JOHNSON, WILLIAMS; JAMES and MARY lead', () => {
    const top = (values: unknown[], n: number) => {
      const c = new Map<unknown, number>();
      for (const v of values) c.set(v, (c.get(v) ?? 0) + 1);
      return [...c].sort((a, b) => b[1] - a[1]).slice(0, n);
    };
    const last = top(col('LNAME'), 10);
    expect(last[0]![0]).toBe('SMITH');
    expect(last[0]![1] / ROWS).toBeGreaterThan(0.007);
    expect(last[0]![1] / ROWS).toBeLessThan(0.015);
    expect(last.map(([n]) => n)).toEqual(expect.arrayContaining(['JOHNSON', 'WILLIAMS', 'JONES', 'BROWN']));
    expect(new Set(col('LNAME')).size).toBeGreaterThan(10_000);
    const male = top(
      records.filter((r) => r[at('GENDER')] === 'M').map((r) => r[at('FNAME')]),
      5,
    ).map(([n]) => n);
    const female = top(
      records.filter((r) => r[at('GENDER')] === 'F').map((r) => r[at('FNAME')]),
      5,
    ).map(([n]) => n);
    expect(male).toEqual(expect.arrayContaining(['JAMES', 'JOHN', 'ROBERT']));
    expect(female[0]).toBe('MARY');
  });
});

describe('generateDataset', () => {
  it('writes a real dataset file with one row per record', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audience-desk-generate-'));
    try {
      const out = join(dir, 'people.sqlite');
      const progress: number[] = [];
      const result = generateDataset({ rows: 12_345, seed: 5, out, onProgress: (n) => progress.push(n) });
      expect(result.records).toBe(12_345);
      expect(result.seconds).toBeGreaterThan(0);
      expect(progress.at(-1)).toBe(12_345);
      const db = openDatasetSql(out);
      try {
        expect(db.prepare('SELECT count(*) AS n FROM people').get()).toEqual({ n: 12_345 });
        expect(db.prepare('SELECT count(*) AS n FROM states').get()).toEqual({ n: 51 });
        const meta = Object.fromEntries(
          (db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((m) => [m.key, m.value]),
        );
        expect(meta).toMatchObject({ generator: 'audience-desk', seed: '5', rows: '12345' });
      } finally {
        db.close();
      }
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
