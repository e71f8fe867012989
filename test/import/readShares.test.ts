// Staged rows are read by two readers, over the two halves of the input (read/splitInput.ts). Whatever
// the cut, the import must give what one reader gives: the same dataset byte for byte, the same
// rejects file (line numbers counted from the file's start, rows in input order), the same
// summary, the row read last winning across the halves. A cut inside a quoted field is found and
// the input read again on one reader. The importSplitBytes setting lowers the size past which
// an input is cut, so that small files are cut too.
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { overrideSettings } from '../../src/core/config';
import { importFiles, type ImportSummary } from '../../src/core/import/importFiles';
import { readShare as readRows } from '../../src/core/import/read/readShare';
import { countLines, planShares, wholeFiles, type FilePart } from '../../src/core/import/read/splitInput';
import { identityOf } from '../../src/core/fs/regularFile';
import { inspectSource } from '../../src/core/import/source/sourceFile';
import { STATE_CODES } from '../../src/shared/states';
import { dumpDataset as dump, pidOf, readRejects, tempDir } from './helpers';

const HEADER = 'PID,STATE,GENDER,CITY,AGE';

let dir: string;
beforeAll(() => {
  dir = tempDir('audience-desk-import-shares-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let restoreSettings: (() => void) | undefined;
afterEach(() => splitting(false));

const splitting = (on: boolean): void => {
  restoreSettings?.();
  restoreSettings = on ? overrideSettings({ importSplitBytes: 1 }) : undefined;
};

/** Rows in a scrambled order, with bad rows, quoted line breaks and repeated PIDs all through. */
function mixedRows(count: number): string[] {
  const rows: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = (i * 7919) % count; // a scrambled order
    const pid = pidOf(n % Math.floor(count * 0.9)); // the last tenth repeats earlier PIDs
    const state = STATE_CODES[n % STATE_CODES.length]!;
    if (i % 97 === 5) rows.push(`${pid},${state},X,Bad Gender,30`);
    else if (i % 89 === 7) rows.push(`${pid},${state},F,"Two\r\nLines ${i}",31`);
    else if (i % 83 === 3) rows.push(`${pid},${state},M,Wrong Count`);
    else rows.push(`${pid},${state},${i % 2 ? 'F' : 'M'},City ${i % 17},${i % 90}`);
  }
  return rows;
}

function write(name: string, lines: string[], newline: string): string {
  const path = join(dir, name);
  writeFileSync(path, [HEADER, ...lines].join(newline) + newline);
  return path;
}

async function importBoth(files: string[], name: string): Promise<{ one: ImportSummary; two: ImportSummary }> {
  splitting(false);
  const one = await importFiles({ files, out: join(dir, `${name}-one.sqlite`) });
  splitting(true);
  const two = await importFiles({ files, out: join(dir, `${name}-two.sqlite`) });
  return { one, two };
}

function expectSame({ one, two }: { one: ImportSummary; two: ImportSummary }): void {
  const counts = (s: ImportSummary): unknown => ({ ...s, seconds: 0, out: '', rejectsPath: '' });
  expect(counts(two)).toEqual(counts(one));
  expect(readFileSync(two.rejectsPath, 'utf8')).toBe(readFileSync(one.rejectsPath, 'utf8'));
  expect(dump(two.out)).toEqual(dump(one.out));
}

describe('the cut between two readers', () => {
  it('falls just after a line end near the middle of a plain file, inside a gzip file only when no file boundary is near', () => {
    splitting(true);
    for (const newline of ['\n', '\r\n', '\r']) {
      const path = write(`cut-${newline.length}-${newline.charCodeAt(0)}.csv`, mixedRows(400), newline);
      const [first, second] = planShares([inspectSource(path)], 2);
      const text = readFileSync(path);
      const cut = first![0]!.end;
      expect(second![0]).toMatchObject({ file: 0, start: cut, end: text.length, header: false });
      expect(Math.abs(cut - text.length / 2)).toBeLessThan(100);
      expect(text.subarray(cut - newline.length, cut).toString()).toBe(newline);
      if (newline === '\r') expect(text[cut]).not.toBe(0x0a);
    }
    const gz = join(dir, 'whole.csv.gz');
    const inflated = Buffer.from([HEADER, ...mixedRows(400)].join('\n') + '\n');
    writeFileSync(gz, gzipSync(inflated));
    // One gzip file: both readers read it whole, cut past its inflated middle.
    const [before, after] = planShares([inspectSource(gz)], 2);
    const at = before![0]!.inflated!.at;
    expect(before).toEqual([{ file: 0, start: 0, end: statSync(gz).size, header: true, inflated: { at, side: 'before' } }]);
    expect(after).toEqual([{ file: 0, start: 0, end: statSync(gz).size, header: false, inflated: { at, side: 'after' } }]);
    expect(at / inflated.length).toBeGreaterThan(0.5);
    expect(at / inflated.length).toBeLessThan(0.6);
    // Two gzip files: cut between them.
    const gz2 = join(dir, 'whole2.csv.gz');
    writeFileSync(gz2, gzipSync([HEADER, ...mixedRows(300)].join('\n') + '\n'));
    const shares = planShares([inspectSource(gz), inspectSource(gz2)], 2);
    expect(shares.map((parts) => parts.map((p) => p.file))).toEqual([[0], [1]]);
  });

  it('numbers lines from the file start as the row reader does (CRLF, LF, lone CR one each)', () => {
    const path = join(dir, 'lines.csv');
    const text = 'a\r\nb\nc\rd\r\r\ne\n\n\rf\r';
    writeFileSync(path, text);
    const file = { path, followLinks: false, identity: identityOf(statSync(path)) };
    for (let end = 1; end <= text.length; end++) {
      const head = text.slice(0, end);
      if (head.endsWith('\r') && text[end] === '\n') continue; // a cut never falls between CR and LF
      expect(countLines(file, end)).toBe((head.match(/\r\n|\n|\r/g) ?? []).length);
    }
  });
});

describe('two readers import what one reader imports', () => {
  it('for one shuffled file with bad rows, quoted line breaks and repeated PIDs', async () => {
    const path = write('mixed.csv', mixedRows(3000), '\r\n');
    splitting(true);
    expect(planShares([inspectSource(path)], 2)).toHaveLength(2);
    const both = await importBoth([path], 'mixed');
    expectSame(both);
    expect(both.two.rejected).toBeGreaterThan(60);
    expect(both.two.replaced).toBeGreaterThan(200);
    // Rejects of the second half carry their line in the file (a quoted line break adds a line).
    const lines = readFileSync(path, 'utf8').split('\r\n');
    const rejects = readRejects(both.two.rejectsPath);
    const late = rejects.filter((r) => Number(r.line) > lines.length / 2);
    expect(late.length).toBeGreaterThan(20);
    for (const r of late) expect(lines[Number(r.line) - 1]).toBe(r.row.split('\r\n')[0]);
  });

  it('for several files, the cut inside one of them or between gzip files', async () => {
    const rows = mixedRows(2400);
    const a = write('part-a.csv', rows.slice(0, 700), '\n');
    const b = join(dir, 'part-b.tsv');
    writeFileSync(b, [HEADER, ...rows.slice(700, 2000)].map((r) => r.replaceAll(',', '\t')).join('\n') + '\n');
    const c = join(dir, 'part-c.csv.gz');
    writeFileSync(c, gzipSync([HEADER, ...rows.slice(2000)].join('\n') + '\n'));
    expectSame(await importBoth([a, b, c], 'several'));
    const g1 = join(dir, 'g1.csv.gz');
    const g2 = join(dir, 'g2.csv.gz');
    writeFileSync(g1, gzipSync([HEADER, ...rows.slice(0, 1200)].join('\n') + '\n'));
    writeFileSync(g2, gzipSync([HEADER, ...rows.slice(1200)].join('\n') + '\n'));
    expectSame(await importBoth([g1, g2], 'gzips'));
  });

  it('for one gzipped file, cut inside: each reader inflates it and finds the same cut (LF, CRLF, lone CR)', async () => {
    for (const newline of ['\n', '\r\n', '\r']) {
      const name = `inflated-${newline.length}-${newline.charCodeAt(0)}`;
      const text = [HEADER, ...mixedRows(3000)].join(newline) + newline;
      const path = join(dir, `${name}.csv.gz`);
      writeFileSync(path, gzipSync(text));
      splitting(true);
      expect(planShares([inspectSource(path)], 2)[1]![0]!.inflated?.side).toBe('after');
      const both = await importBoth([path], name);
      expectSame(both);
      // Rejects after the cut carry their line in the file.
      const lines = text.split(newline);
      const late = readRejects(both.two.rejectsPath).filter((r) => Number(r.line) > lines.length * 0.6);
      expect(late.length).toBeGreaterThan(10);
      for (const r of late) expect(lines[Number(r.line) - 1]).toBe(r.row.split(newline)[0]);
    }
  });

  it('for one gzipped file, the rows before and after the cut are the rows of the whole file, each once', async () => {
    for (const newline of ['\n', '\r\n', '\r']) {
      const path = join(dir, `halves-${newline.length}-${newline.charCodeAt(0)}.csv.gz`);
      writeFileSync(path, gzipSync([HEADER, ...mixedRows(2000)].join(newline) + newline));
      splitting(true);
      const sources = [inspectSource(path)];
      const read = async (parts: FilePart[]): Promise<{ accepted: string[]; rejected: unknown[] }> => {
        const accepted: string[] = [];
        const rejected: unknown[] = [];
        const read = await readRows(sources, parts, (b) => {
          if (b.texts) accepted.push(...Buffer.from(b.texts, 0, b.textBytes).toString('utf8').split('\n'));
          rejected.push(...b.rejects.map((r) => [r.line, r.raw]));
        });
        expect(read).toEqual({ kind: 'done' }); // a misaligned cut would say 'restart'
        return { accepted, rejected };
      };
      const [before, after] = planShares(sources, 2);
      // Reader 0 stops at a row's end (no misaligned cut), reader 1 starts at the next row.
      const first = await read(before!);
      const second = await read(after!);
      const whole = await read(wholeFiles(sources));
      expect(first.accepted.length).toBeGreaterThan(800);
      expect([...first.accepted, ...second.accepted]).toEqual(whole.accepted);
      expect([...first.rejected, ...second.rejected]).toEqual(whole.rejected);
    }
  });

  it('for a gzipped file whose trailer misstates its size (several members): still what one reader gives', async () => {
    // gzip members one after the other inflate as one text; the trailer speaks of the last alone.
    const rows = mixedRows(2000);
    const path = join(dir, 'members.csv.gz');
    writeFileSync(
      path,
      Buffer.concat([gzipSync([HEADER, ...rows.slice(0, 1990)].join('\n') + '\n'), gzipSync(rows.slice(1990).join('\n') + '\n')]),
    );
    splitting(true);
    expect(planShares([inspectSource(path)], 2)).toHaveLength(2);
    expectSame(await importBoth([path], 'members'));
  });

  it('when the cut falls inside a quoted field: the file is read again on one reader', async () => {
    const rows = mixedRows(600);
    // A quoted field of many lines across the middle of the file.
    const long = `${pidOf(999_999)},TX,F,"${Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n')}",40`;
    const path = write('quoted-middle.csv', [...rows.slice(0, 300), long, ...rows.slice(300)], '\n');
    splitting(true);
    const cut = planShares([inspectSource(path)], 2)[0]![0]!.end;
    const text = readFileSync(path, 'utf8');
    const open = text.indexOf('"line 0');
    expect(cut).toBeGreaterThan(open);
    expect(cut).toBeLessThan(text.indexOf('line 399"'));
    const both = await importBoth([path], 'quoted');
    expectSame(both);
    expect(both.two.imported).toBe(both.one.imported);
    // The same inside a gzip file.
    const gz = join(dir, 'quoted-middle.csv.gz');
    writeFileSync(gz, gzipSync(text));
    const at = planShares([inspectSource(gz)], 2)[0]![0]!.inflated!.at;
    expect(at).toBeGreaterThan(Buffer.byteLength(text.slice(0, open)));
    expect(at).toBeLessThan(Buffer.byteLength(text.slice(0, text.indexOf('line 399"'))));
    expectSame(await importBoth([gz], 'quoted-gz'));
  });
});
