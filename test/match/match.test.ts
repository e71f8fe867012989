// Match and append through the real CLI against the shared test dataset: a messy customer file built
// from real records (formatted phones, lower-case addresses with ZIP+4, names in swapped case, lower-
// case PIDs) plus strangers at real addresses and phones with other names. Every real row is matched
// to its own person with that person's values appended (codes, and codebook labels), no stranger is
// matched, the customer's bytes come back as given (CRLF, quotes, UTF-8), gzip reads the same, the
// output is whole or absent, and the matched people kept as a list are what `exclude` leaves out.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { codeLabel } from '../../src/shared/codebook';
import { createCore } from '../../src/core/createCore';
import { normalizeAudience } from '../../src/shared/audienceRequest';
import { cli } from '../support/cli';
import { openDatasetSql } from '../support/datasetSql';
import { APPENDED, buildCustomers, csvCell, HEADER, readPeople, type CustomerRowSpec, type Person } from './matchData';

let dir: string;
let home: string;
let people: Map<string, Person>;
let specs: CustomerRowSpec[];
let input: string;
let lines: string[];

const lastJson = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

function run(file: string, out: string, extra: string[] = []) {
  return cli(['match', file, '--fields', APPENDED.join(','), '--out', out, '--db', inject('datasetPath'), '--home', home, ...extra]);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-match-'));
  home = join(dir, 'home');
  const all = readPeople(inject('datasetPath'));
  people = new Map(all.map((p) => [p.PID, p]));
  specs = buildCustomers(all);
  lines = [HEADER.join(','), ...specs.map((s) => s.cells.map(csvCell).join(','))];
  input = join(dir, 'customers.csv');
  // CRLF line breaks and a byte-order mark, as a spreadsheet saves them.
  writeFileSync(input, '\ufeff' + lines.join('\r\n') + '\r\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('match and append', () => {
  it('matches every real row to its own person, no stranger, and gives the customer cells back byte for byte', async () => {
    const out = join(dir, 'matched.csv');
    const r = await run(input, out);
    expect(r.code, r.stderr).toBe(0);
    const real = specs.filter((s) => s.expect !== null);
    const strangers = specs.filter((s) => s.expect === null);
    expect(real.length).toBeGreaterThan(100);
    expect(strangers.length).toBeGreaterThan(20);
    for (const method of ['pid', 'address', 'phone'] as const)
      expect(real.filter((s) => s.expect!.method === method).length).toBeGreaterThan(10);

    const summary = lastJson(r.stdout);
    expect(summary.rows).toBe(specs.length);
    expect(summary.matched).toBe(real.length);
    expect(summary.byMethod).toEqual({
      pid: real.filter((s) => s.expect!.method === 'pid').length,
      address: real.filter((s) => s.expect!.method === 'address').length,
      phone: real.filter((s) => s.expect!.method === 'phone').length,
    });
    expect(summary.ambiguous).toBe(0);
    expect(summary.rejected).toBe(0);
    expect(summary.refused).toBe(strangers.length);

    const bytes = readFileSync(out);
    const inputBytes = readFileSync(input);
    // The byte-order mark and each row's own bytes, each followed by the appended cells and the row's own CRLF.
    const outLines = bytes.toString('utf8').split('\r\n');
    expect(outLines.at(-1)).toBe('');
    expect(outLines.length - 1).toBe(lines.length);
    expect(bytes.subarray(0, 3)).toEqual(inputBytes.subarray(0, 3));
    expect(outLines[0]).toBe(`\ufeff${lines[0]},MATCH,${APPENDED.join(',')}`);
    specs.forEach((spec, i) => {
      const line = outLines[i + 1]!;
      expect(line.startsWith(`${lines[i + 1]},`), `row ${i + 1}`).toBe(true);
      const appended = Papa.parse<string[]>(line.slice(lines[i + 1]!.length + 1), { delimiter: ',' }).data[0]!;
      if (spec.expect === null) {
        expect(appended, `stranger row ${i + 1}`).toEqual(['', '', '', '']);
        return;
      }
      const p = people.get(spec.expect.pid)!;
      expect(appended, `row ${i + 1}`).toEqual([spec.expect.method, p.GENDER, p.GENERATION_GRPCD, p.CITY]);
    });
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });

  it('appends codebook labels with --values labels, and reads the same file gzipped', async () => {
    const gz = join(dir, 'customers.csv.gz');
    writeFileSync(gz, gzipSync(readFileSync(input)));
    const out = join(dir, 'labels.csv');
    const r = await run(gz, out, ['--values', 'labels']);
    expect(r.code, r.stderr).toBe(0);
    const parsed = Papa.parse<string[]>(readFileSync(out, 'utf8').replace(/^\ufeff/, ''), { delimiter: ',', skipEmptyLines: true }).data;
    specs.forEach((spec, i) => {
      const row = parsed[i + 1]!;
      expect(row.slice(0, HEADER.length)).toEqual(spec.cells);
      if (spec.expect === null) return expect(row[HEADER.length]).toBe('');
      const p = people.get(spec.expect.pid)!;
      expect(row.slice(HEADER.length)).toEqual([
        spec.expect.method,
        codeLabel('GENDER', p.GENDER) ?? p.GENDER,
        codeLabel('GENERATION_GRPCD', p.GENERATION_GRPCD) ?? p.GENERATION_GRPCD,
        p.CITY,
      ]);
    });
    expect(codeLabel('GENDER', 'F')).not.toBe('F');
  });

  it('matches a full-name column written "Last, First" and a tab-separated file', async () => {
    const file = join(dir, 'names.tsv');
    const rows = specs.filter((s) => s.expect?.method === 'address').slice(0, 20);
    const text = ['Name\tAddress\tZIP', ...rows.map((s) => `${s.cells[2]}, ${s.cells[1]}\t${s.cells[3]}\t${s.cells[4]}`)].join('\n');
    writeFileSync(file, text);
    const out = join(dir, 'names-out.tsv');
    const r = await run(file, out);
    expect(r.code, r.stderr).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ rows: 20, matched: 20 });
    const outLines = readFileSync(out, 'utf8').split('\n');
    // No line break after the last row in, none out.
    expect(outLines).toHaveLength(21);
    rows.forEach((s, i) => {
      const p = people.get(s.expect!.pid)!;
      expect(outLines[i + 1]).toBe(`${text.split('\n')[i + 1]}\taddress\t${p.GENDER}\t${p.GENERATION_GRPCD}\t${p.CITY}`);
    });
  });

  it('keeps the matched people as a list that exclude leaves out', async () => {
    const out = join(dir, 'kept.csv');
    const r = await run(input, out, ['--keep', 'Matched customers']);
    expect(r.code, r.stderr).toBe(0);
    const summary = lastJson(r.stdout);
    expect(typeof summary.list).toBe('string');
    const matchedPids = new Set(specs.filter((s) => s.expect !== null).map((s) => s.expect!.pid));
    const core = createCore({ homeDir: home, datasetPath: inject('datasetPath') });
    try {
      const info = await core.lists.get(summary.list as string);
      expect(info).toMatchObject({ pids: matchedPids.size, phones: 0, addresses: 0, matched: matchedPids.size });
      const state = people.get([...matchedPids][0]!)!.STATE;
      const inState = [...matchedPids].filter((pid) => people.get(pid)!.STATE === state);
      const plain = await core.audiences.count(normalizeAudience({ state, filters: [] }));
      const without = await core.audiences.count(normalizeAudience({ state, filters: [], exclude: [`list:${summary.list as string}`] }));
      expect(plain.total - without.total).toBe(inState.length);
    } finally {
      await core.shutdown();
    }
    // A second list of the same name is refused before anything is written.
    const again = join(dir, 'again.csv');
    const clash = await run(input, again, ['--keep', 'matched CUSTOMERS']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--keep/);
    expect(existsSync(again)).toBe(false);
  });

  it('writes nothing on a bad request and leaves an existing file as it was', async () => {
    const out = join(dir, 'kept-as-is.csv');
    writeFileSync(out, 'before\n');
    const badField = await cli([
      'match',
      input,
      '--fields',
      'GENDER,NOSUCHFIELD',
      '--out',
      out,
      '--db',
      inject('datasetPath'),
      '--home',
      home,
    ]);
    expect(badField.code).toBe(2);
    expect(badField.stderr).toMatch(/--fields: "NOSUCHFIELD" is not a field/);
    const noHeader = join(dir, 'no-header.csv');
    writeFileSync(noHeader, 'a,b,c\n1,2,3\n');
    const refused = await run(noHeader, out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/names no PID, PHONE or ADDRESS column/);
    const nameless = join(dir, 'nameless.csv');
    writeFileSync(nameless, 'Phone\n9074815345\n');
    expect((await run(nameless, out)).stderr).toMatch(/no name columns/);
    expect(readFileSync(out, 'utf8')).toBe('before\n');
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });
  it('takes the lowest PID where two people match equally and counts it; a full first name tells them apart', async () => {
    const db = openDatasetSql(inject('datasetPath'));
    let pairs: Array<{ ADDRESS: string; ZIP: string; LNAME: string; F1: string; F2: string; P1: string; P2: string }>;
    try {
      // Households with exactly two people of one last name and one first initial, and different first names.
      pairs = db
        .prepare(
          `SELECT ADDRESS, ZIP, LNAME, min(FNAME) AS F1, max(FNAME) AS F2, min(PID) AS P1, max(PID) AS P2 FROM people
           GROUP BY ADDRESS, ZIP, LNAME, substr(FNAME, 1, 1) HAVING count(*) = 2 AND min(FNAME) <> max(FNAME) LIMIT 30`,
        )
        .all() as typeof pairs;
    } finally {
      db.close();
    }
    expect(pairs.length).toBeGreaterThan(5);
    const pidOf = (pair: (typeof pairs)[number], first: string) =>
      readPeopleAt(pair.ADDRESS, pair.ZIP).find((p) => p.FNAME === first && p.LNAME === pair.LNAME)!.PID;
    const file = join(dir, 'ties.csv');
    const rows = pairs.flatMap((p) => [`${p.F1[0]!}.,${p.LNAME},${p.ADDRESS},${p.ZIP}`, `${p.F2},${p.LNAME},${p.ADDRESS},${p.ZIP}`]);
    writeFileSync(file, ['first,last,address,zip', ...rows].join('\n') + '\n');
    const out = join(dir, 'ties-out.csv');
    const r = await cli(['match', file, '--fields', 'PID', '--out', out, '--db', inject('datasetPath'), '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ rows: pairs.length * 2, matched: pairs.length * 2, ambiguous: pairs.length });
    const outRows = readFileSync(out, 'utf8').trim().split('\n').slice(1);
    pairs.forEach((p, i) => {
      expect(outRows[2 * i]).toBe(`${rows[2 * i]},address,${p.P1}`);
      expect(outRows[2 * i + 1]).toBe(`${rows[2 * i + 1]},address,${pidOf(p, p.F2)}`);
    });
  });
});

function readPeopleAt(address: string, zip: string): Person[] {
  return [...people.values()].filter((p) => p.ADDRESS === address && p.ZIP === zip);
}
