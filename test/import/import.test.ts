// The import on real vendor-like files (test/fixtures/import): formats, normalisation, the rules a
// row must pass, the rejects file, duplicates, several files into one dataset, and the summary's
// invariants. Every check reads the dataset file the import wrote.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../../src/core/createCore';
import { importFiles, type ImportProgress, type ImportSummary } from '../../src/core/import/importFiles';
import { AppError } from '../../src/shared/errors';
import { STATE_CODES } from '../../src/shared/states';
import { searchRecords } from '../support/audienceQueries';
import { fixture, integrity, listDir, pidOf, readRecords, readRejects, recordsByPid, tempDir, ALL_FIXTURES } from './helpers';

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectInvariants(s: ImportSummary): void {
  expect(s.imported + s.rejected).toBe(s.read);
  expect(s.records).toBe(s.imported - s.replaced);
  expect(s.files.reduce((n, f) => n + f.read, 0)).toBe(s.read);
  expect(integrity(s.out)).toEqual({ check: 'ok', records: s.records });
  expect(readRejects(s.rejectsPath)).toHaveLength(s.rejected);
}

describe('import of the fixture files into one dataset', () => {
  let summary: ImportSummary;
  let records: Map<string, Record<string, string | number>>;
  const notices: string[] = [];
  beforeAll(async () => {
    summary = await importFiles({
      files: ALL_FIXTURES,
      out: join(dir, 'all.sqlite'),
      rejectsPath: join(dir, 'all-rejects.csv'),
      onNotice: (m) => notices.push(m),
    });
    records = recordsByPid(summary.out);
  });

  it('accounts for every row: read = imported + rejected, records = imported - replaced', () => {
    expect(summary).toMatchObject({ read: 32, imported: 16, rejected: 16, replaced: 3, records: 13 });
    expect(summary.files.map((f) => [f.read, f.imported, f.rejected])).toEqual([
      [4, 4, 0],
      [3, 3, 0],
      [3, 3, 0],
      [2, 2, 0],
      [18, 3, 15],
      [2, 1, 1],
    ]);
    expectInvariants(summary);
    expect([...records.keys()].sort()).toHaveLength(13);
  });

  it('reads comma CSV with BOM and CRLF, with delimiters, quotes and line breaks inside quoted fields', () => {
    expect(summary.files[0]).toMatchObject({ gzip: false, delimiter: ',' });
    expect(records.get('A0000000000000000000000000000001')).toMatchObject({
      STATE: 'CA',
      GENDER: 'F',
      FNAME: 'MARY',
      LNAME: 'O"NEIL',
      ADDRESS: '12 MAIN ST, APT 4',
      CITY: 'LOS ANGELES',
      ZIP: '90001',
      AGE: 34,
      LATITUDE: 34.05,
      LONGITUDE: -118.25,
      MS_BOOKS: 3,
    });
    expect(records.get('A0000000000000000000000000000002')).toMatchObject({ STATE: 'TX', ADDRESS: 'LINE ONE\r\nLINE TWO', CITY: 'AUSTIN' });
    expect(records.get('A0000000000000000000000000000003')).toMatchObject({
      FNAME: 'ANN "ANNIE"',
      ADDRESS: '5 "Q" ST',
      ZIP: '01001',
      AGE: 0,
      LATITUDE: 0,
    });
  });

  it('recognises a gzipped pipe-delimited file by its magic bytes, whatever its name', () => {
    expect(summary.files[1]).toMatchObject({ gzip: true, delimiter: '|' });
    expect(records.get('B0000000000000000000000000000002')).toMatchObject({ STATE: 'WA', GENDER: 'M', CITY: 'SPOKANE|VALLEY', AGE: 52 });
  });

  it('reads a tab file whose header is in mixed case and another order', () => {
    expect(summary.files[2]).toMatchObject({ gzip: false, delimiter: '\t' });
    expect(records.get('C0000000000000000000000000000002')).toMatchObject({
      STATE: 'MA',
      GENDER: 'M',
      FNAME: 'LEO',
      CITY: 'BOSTON',
      AGE: 19,
    });
  });

  it('fills missing columns with absent data and ignores unknown columns, reported once', () => {
    const d1 = records.get('D0000000000000000000000000000001')!;
    expect(d1).toMatchObject({
      STATE: 'DC',
      GENDER: 'F',
      MS_BOOKS: 7,
      FNAME: '',
      HHID: '',
      AGE: 0,
      LATITUDE: 0,
      CT_MEDIA_HEAVYUSAGE_TV: '',
    });
    expect(records.get('D0000000000000000000000000000002')).toMatchObject({ STATE: 'AK', MS_BOOKS: 0 });
    expect(summary.files[3]!.unknownColumns).toEqual(['VENDOR_ID', 'notes']);
    expect(summary.files.filter((f) => f.unknownColumns.length > 0)).toHaveLength(1);
    expect(notices).toEqual([`${fixture('missing-and-extra.csv')}: ignored 2 unknown columns: VENDOR_ID, notes`]);
  });

  it('normalises: PID, STATE, GENDER and text upper-case; cells trimmed', () => {
    expect(records.get('E0000000000000000000000000000015')).toMatchObject({
      STATE: 'CO',
      GENDER: 'F',
      AGE: 30,
      LATITUDE: 39.5,
      LONGITUDE: -105,
      CITY: 'BOULDER',
    });
    expect(records.has('C0000000000000000000000000000002')).toBe(true); // written c000… in the file
  });

  it('keeps the row read last for a PID, whole (no merging), within a file and across files', () => {
    // Across files: comma file TX/Dallas, then pipe file CA/Fresno.
    expect(records.get('A0000000000000000000000000000004')).toMatchObject({
      STATE: 'CA',
      FNAME: 'NEW',
      LNAME: '',
      CITY: 'FRESNO',
      AGE: 42,
      ZIP: '',
    });
    // Within a file: lines 2 and 4 of the tab file; lines 2 and 21 of bad-rows.csv.
    expect(records.get('C0000000000000000000000000000001')).toMatchObject({ STATE: 'IL', AGE: 62, CITY: 'EVANSTON' });
    expect(records.get('E0000000000000000000000000000001')).toMatchObject({ AGE: 31, LATITUDE: 0 });
  });

  it('writes each rejected row with file, start line, field, reason and its text as in the file', () => {
    const rejects = readRejects(summary.rejectsPath);
    const bad = fixture('bad-rows.csv');
    const expected: Array<[string, string, RegExp, string]> = [
      ['3', 'PID', /^missing$/, ',CO,F,30,,,Denver'],
      ['4', 'PID', /32 hexadecimal/, 'E000000000000000000000000000002,CO,F,30,,,Denver'],
      ['5', 'PID', /32 hexadecimal/, 'G000000000000000000000000000000Z,CO,F,30,,,Denver'],
      ['6', 'STATE', /state.*"ZZ"/, 'E0000000000000000000000000000003,ZZ,F,30,,,Nowhere'],
      ['7', 'STATE', /^missing$/, 'E0000000000000000000000000000004,,F,30,,,Nowhere'],
      ['8', 'GENDER', /F or M: "X"/, 'E0000000000000000000000000000005,CO,X,30,,,Denver'],
      ['9', 'GENDER', /^missing$/, 'E0000000000000000000000000000006,CO,,30,,,Denver'],
      [
        '10',
        'AGE',
        /^AGE values must be whole numbers of years from 0 to 120, not "abc"$/,
        'E0000000000000000000000000000007,CO,F,abc,,,Denver',
      ],
      [
        '11',
        'AGE',
        /^AGE values must be whole numbers of years from 0 to 120, not "2\.5"$/,
        'E0000000000000000000000000000008,CO,F,2.5,,,Denver',
      ],
      [
        '12',
        'AGE',
        /^AGE values must be whole numbers of years from 0 to 120, not "-3"$/,
        'E0000000000000000000000000000009,CO,F,-3,,,Denver',
      ],
      ['13', 'LATITUDE', /number from -90 to 90: "north"/, 'E0000000000000000000000000000010,CO,F,30,north,,Denver'],
      ['14', 'LONGITUDE', /number from -180 to 180: "200"/, 'E0000000000000000000000000000011,CO,F,30,,200,Denver'],
      ['15', '', /8 fields where the header has 7/, 'E0000000000000000000000000000012,CO,F,30,,,Denver,extra'],
      ['16', '', /3 fields where the header has 7/, 'E0000000000000000000000000000013,CO,F'],
      ['18', '', /8 fields where the header has 7/, '"E0000000000000000000000000000014",CO,F,30,,,"Multi\nline city",extra'],
    ];
    const fromBad = rejects.filter((r) => r.file === bad);
    expect(fromBad).toHaveLength(expected.length);
    expected.forEach(([line, field, reason, row], k) => {
      expect(fromBad[k]).toMatchObject({ line, field, row });
      expect(fromBad[k]!.reason).toMatch(reason);
    });
    // The raw rows under the file's header line make a file that reads back as the same rows.
    const again = join(dir, 'again.csv');
    writeFileSync(again, [readFileSync(bad, 'utf8').split('\n')[0], ...fromBad.map((r) => r.row)].join('\n') + '\n');
    return importFiles({ files: [again], out: join(dir, 'again.sqlite') }).then(
      () => expect.unreachable('no row of it is valid'),
      () =>
        expect(readRejects(join(dir, 'again.sqlite.rejects.csv')).map((r) => [r.field, r.reason])).toEqual(
          fromBad.map((r) => [r.field, r.reason]),
        ),
    );
  });

  it('rejects the rest of a file after a quote that is never closed, as one row starting on its line', () => {
    const [r] = readRejects(summary.rejectsPath).filter((x) => x.file === fixture('unclosed-quote.csv'));
    expect(r).toMatchObject({ line: '3', field: '', row: 'F0000000000000000000000000000002,OR,"M\nF0000000000000000000000000000003,OR,F' });
    expect(r!.reason).toMatch(/never closed/);
    expect(records.has('F0000000000000000000000000000001')).toBe(true);
  });

  it('serves the imported records through the core, in (STATE, PID) order', async () => {
    const core = new Core({ homeDir: join(dir, 'home'), datasetPath: summary.out });
    try {
      const page = await searchRecords(core, { state: 'CA', limit: 10, skip: 0, filters: [] });
      expect(page.total).toBe(2);
      expect(page.results.map((r) => r.PID)).toEqual(['A0000000000000000000000000000001', 'A0000000000000000000000000000004']);
      expect((await searchRecords(core, { state: 'co', limit: 10, skip: 0, filters: [['GENDER', ['F']]] })).total).toBe(2);
      expect((await searchRecords(core, { state: 'TX', limit: 10, skip: 0, filters: [] })).total).toBe(1);
    } finally {
      await core.shutdown();
    }
  });

  it('leaves no temporary file behind', () => {
    expect(listDir(dir).filter((n) => n.startsWith('all') || n.startsWith('.all'))).toEqual(['all-rejects.csv', 'all.sqlite']);
  });
});

describe('import rules', () => {
  it('rejects a row that is not valid UTF-8 and keeps the others', async () => {
    const file = join(dir, 'latin1.csv');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('PID,STATE,GENDER,CITY\n'),
        Buffer.from('A0000000000000000000000000000001,CA,F,San Jos'),
        Buffer.from([0xe9]),
        Buffer.from('\nA0000000000000000000000000000002,CA,F,San José\n'),
      ]),
    );
    const s = await importFiles({ files: [file], out: join(dir, 'latin1.sqlite') });
    expect(s).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(readRejects(s.rejectsPath)[0]).toMatchObject({ line: '2', field: '', reason: 'not valid UTF-8 text' });
    expect(recordsByPid(s.out).get('A0000000000000000000000000000002')!.CITY).toBe('SAN JOSÉ');
  });

  it('takes the delimiter from the option when the header line cannot tell', async () => {
    const file = join(dir, 'forced.txt');
    writeFileSync(file, 'PID|STATE|GENDER|A,B,C,D\nA0000000000000000000000000000001|CA|F|1,2,3,4\n');
    await expect(importFiles({ files: [file], out: join(dir, 'forced.sqlite') })).rejects.toThrow(
      /cannot tell the delimiter.*the Delimiter menu in the app, --delimiter on the command line/,
    );
    const s = await importFiles({ files: [file], out: join(dir, 'forced.sqlite'), delimiter: '|' });
    expect(s).toMatchObject({ read: 1, imported: 1 });
    expect(s.files[0]).toMatchObject({ delimiter: '|', unknownColumns: ['A,B,C,D'] });
  });

  it('fails the whole import, replacing nothing, when a file lacks a required column or names a field twice', async () => {
    const out = join(dir, 'keep.sqlite');
    const first = await importFiles({ files: [fixture('missing-and-extra.csv')], out });
    const before = readFileSync(out);
    const noGender = join(dir, 'no-gender.csv');
    writeFileSync(noGender, 'PID,STATE\nA0000000000000000000000000000001,CA\n');
    await expect(importFiles({ files: [fixture('comma-bom-crlf.csv'), noGender], out })).rejects.toThrow(/no GENDER column/);
    const twice = join(dir, 'twice.csv');
    writeFileSync(twice, 'PID,STATE,GENDER,city,CITY\nA0000000000000000000000000000001,CA,F,A,B\n');
    await expect(importFiles({ files: [twice], out })).rejects.toThrow(/names CITY twice/);
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    await expect(importFiles({ files: [empty], out })).rejects.toThrow(/is empty/);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(first.records).toBe(2);
    expect(listDir(dir).filter((n) => n.includes('keep.sqlite.') && !n.endsWith('.rejects.csv'))).toEqual([]);
  });

  it('does not replace the dataset when no row is valid, but writes the rejects', async () => {
    const out = join(dir, 'novalid.sqlite');
    await importFiles({ files: [fixture('missing-and-extra.csv')], out });
    const allBad = join(dir, 'all-bad.csv');
    writeFileSync(allBad, 'PID,STATE,GENDER\nXYZ,CA,F\nA0000000000000000000000000000001,QQ,F\n');
    await expect(importFiles({ files: [allBad], out })).rejects.toThrow(/None of the 2 rows/);
    expect(integrity(out)).toEqual({ check: 'ok', records: 2 });
    expect(readRejects(`${out}.rejects.csv`)).toHaveLength(2);
  });

  it('checks its arguments before touching anything', async () => {
    const out = join(dir, 'args.sqlite');
    await expect(importFiles({ files: [], out })).rejects.toThrow(AppError);
    await expect(importFiles({ files: [join(dir, 'nope.csv')], out })).rejects.toThrow(/no such file/);
    await expect(importFiles({ files: [fixture('bad-rows.csv')], out: join(dir, 'missing-folder', 'x.sqlite') })).rejects.toThrow(
      /no such folder/,
    );
    const input = join(dir, 'input.csv');
    copyFileSync(fixture('missing-and-extra.csv'), input);
    await expect(importFiles({ files: [input], out: input })).rejects.toThrow(/also an input file/);
    const notDb = join(dir, 'notes.txt');
    writeFileSync(notDb, 'my notes');
    await expect(importFiles({ files: [input], out: notDb })).rejects.toThrow(/not a dataset file/);
    expect(readFileSync(notDb, 'utf8')).toBe('my notes');
    expect(existsSync(out)).toBe(false);
  });

  it('stops, replacing nothing, when an unclosed quote swallows more than 1 MB', async () => {
    const file = join(dir, 'runaway.csv');
    const row = (i: number): string => `${pidOf(i + 1)},CA,F,CITY ${i}`;
    writeFileSync(
      file,
      ['PID,STATE,GENDER,CITY', row(0), `${pidOf(99)},CA,F,"RUNAWAY`, ...Array.from({ length: 40_000 }, (_, i) => row(i + 100))].join(
        '\n',
      ) + '\n',
    );
    const out = join(dir, 'runaway.sqlite');
    await expect(importFiles({ files: [file], out })).rejects.toThrow(
      /row starting near line 3 is longer than 1 MB; is a quote never closed/,
    );
    expect(existsSync(out)).toBe(false);
    expect(listDir(dir).filter((n) => n.startsWith('runaway.sqlite') || n.includes('.partial-'))).toEqual([]);
  });

  it('reads a gzipped file named .gz and a plain file named .gz alike', async () => {
    const text = readFileSync(fixture('missing-and-extra.csv'));
    const gz = join(dir, 'real.csv.gz');
    writeFileSync(gz, gzipSync(text));
    const fake = join(dir, 'fake.csv.gz');
    writeFileSync(fake, text);
    const s = await importFiles({ files: [gz, fake], out: join(dir, 'gz.sqlite') });
    expect(s.files.map((f) => f.gzip)).toEqual([true, false]);
    expect(s).toMatchObject({ read: 4, imported: 4, replaced: 2, records: 2 });
  });
});

/** What this process has open (Linux: /proc/self/fd). */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(join('/proc/self/fd', fd))];
    } catch {
      return []; // closed since the listing
    }
  });
}

describe('atomic, cancellable, cleaning up after dead runs', () => {
  let big: string;
  beforeAll(() => {
    big = join(dir, 'narrow-30k.csv');
    const lines = ['PID,STATE,GENDER,CITY,AGE'];
    for (let i = 0; i < 30_000; i++)
      lines.push(`${pidOf(i * 7 + 1)},${STATE_CODES[i % STATE_CODES.length]},${i % 2 ? 'F' : 'M'},CITY ${i % 97},${i % 80}`);
    writeFileSync(big, lines.join('\n') + '\n');
  });

  it.each(['reading', 'writing'] as const)('a cancel while %s keeps the previous dataset and leaves no temporary file', async (phase) => {
    const out = join(dir, `cancel-${phase}.sqlite`);
    await importFiles({ files: [fixture('missing-and-extra.csv')], out });
    const before = readFileSync(out);
    const controller = new AbortController();
    let seen = 0;
    const attempt = importFiles({
      files: [big],
      out,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === phase && ++seen === 1) controller.abort();
      },
    });
    await expect(attempt).rejects.toThrow(/cancelled/);
    expect(seen).toBeGreaterThan(0);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(listDir(dir).filter((n) => n.includes(`cancel-${phase}.sqlite.`) && !n.endsWith('.rejects.csv'))).toEqual([]);
    expect(listDir(dir).filter((n) => n.includes('.partial-'))).toEqual([]);
    // Nor a removed one kept open, which would hold its disk space while the app runs. (A worker's
    // own files are closed by Node when it is stopped; this thread's must be closed by the import.)
    expect(openFiles().filter((target) => target.includes(`cancel-${phase}.sqlite.`))).toEqual([]);
  });

  it('reports progress: rows, bytes of the total, and a rate', async () => {
    const seen: ImportProgress[] = [];
    const s = await importFiles({
      files: [big, fixture('pipe-gzipped.dat')],
      out: join(dir, 'progress.sqlite'),
      onProgress: (p) => seen.push(p),
    });
    const total = statSync(big).size + statSync(fixture('pipe-gzipped.dat')).size;
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((p) => p.totalBytes === total && p.bytesRead <= total)).toBe(true);
    const reading = seen.filter((p) => p.phase === 'reading');
    expect(reading.map((p) => p.rowsRead)).toEqual([...reading.map((p) => p.rowsRead)].sort((a, b) => a - b));
    expect(reading.at(-1)).toMatchObject({ rowsRead: s.read, bytesRead: total });
    expect(seen.at(-1)).toMatchObject({ phase: 'writing', rowsWritten: s.records });
    expect(seen.some((p) => p.rowsPerSecond > 0)).toBe(true);
  });

  it('removes temporary files of dead runs, and only those', async () => {
    const out = join(dir, 'leftovers.sqlite');
    const rejectsPath = join(dir, 'leftovers-rejects.csv');
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const alive = process.ppid;
    const names = (pid: number): string[] => [
      `leftovers.sqlite.building-${pid}`,
      `leftovers.sqlite.staging-${pid}`,
      `.leftovers-rejects.csv.partial-${pid}`,
      `.leftovers-rejects.csv.partial-${pid}-r1`, // a second reader's rejected rows
      `leftovers.sqlite.building-${pid}-vectors`, // the writer's vectors while built
      `leftovers.sqlite.building-${pid}-vectors-1r0`, // a reading thread's
    ];
    for (const name of [...names(dead), ...names(alive)]) writeFileSync(join(dir, name), 'left over');
    await importFiles({ files: [fixture('missing-and-extra.csv')], out, rejectsPath });
    const left = listDir(dir);
    for (const name of names(dead)) expect(left).not.toContain(name);
    for (const name of names(alive)) expect(left).toContain(name);
    for (const name of names(alive)) rmSync(join(dir, name));
  });

  it('gives the same records when run again on the same files', async () => {
    const a = await importFiles({ files: ALL_FIXTURES, out: join(dir, 'again-a.sqlite') });
    const b = await importFiles({ files: ALL_FIXTURES, out: join(dir, 'again-b.sqlite') });
    expect({ ...b, seconds: 0, out: '', rejectsPath: '' }).toEqual({ ...a, seconds: 0, out: '', rejectsPath: '' });
    expect(readRecords(b.out)).toEqual(readRecords(a.out));
    expect(readFileSync(b.rejectsPath, 'utf8')).toBe(readFileSync(a.rejectsPath, 'utf8'));
  });
});
