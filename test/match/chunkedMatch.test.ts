// Match and append reads, matches and writes a customer file a chunk of rows at a time (docs/match.md,
// "Speed"). A file spanning many chunks of 7 rows, parsed a few bytes at a time (so rows, quoted line
// breaks and CRLFs are cut anywhere), must give the byte-identical file, the same summary and the same
// kept list as one chunk read whole: with ties, rejects, refused strangers, quoted cells with line
// breaks, a byte-order mark and CRLF, a file without a final line break, and a gzip input. A gzip that
// breaks off after chunks were written leaves no file; a row over the row bound is refused.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore } from '../../src/core/createCore';
import { CUSTOMER_REJECTS_KEPT, CUSTOMER_ROW_MAX_BYTES } from '../../src/core/match/customerFile';
import type { MatchRequest } from '../../src/core/match/matchService';
import { openDatasetSql } from '../support/datasetSql';
import { APPENDED, buildCustomers, csvCell, HEADER, readPeople } from './matchData';

const FIELDS = ['PID', ...APPENDED];
let dir: string;
let lines: string[];
let tiePairs: number;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-chunked-match-'));
  const specs = buildCustomers(readPeople(inject('datasetPath')));
  const db = openDatasetSql(inject('datasetPath'));
  let pairs: Array<{ ADDRESS: string; ZIP: string; LNAME: string; F1: string }>;
  try {
    // Two people of one last name and first initial at one address: an initial alone ties them.
    pairs = db
      .prepare(
        `SELECT ADDRESS, ZIP, LNAME, min(FNAME) AS F1 FROM people
         GROUP BY ADDRESS, ZIP, LNAME, substr(FNAME, 1, 1) HAVING count(*) = 2 AND min(FNAME) <> max(FNAME) LIMIT 12`,
      )
      .all() as typeof pairs;
  } finally {
    db.close();
  }
  tiePairs = pairs.length;
  const ties = pairs.map((p, k) => [`T${k}`, `${p.F1[0]!}.`, p.LNAME, p.ADDRESS, p.ZIP, '', '', ''].map(csvCell).join(','));
  // More rejects than the summary keeps, spread over the file: empty rows, rows with nothing to match by, no name.
  const rejects = Array.from({ length: CUSTOMER_REJECTS_KEPT + 5 }, (_, k) =>
    k % 3 === 0 ? ',,,,,,,' : k % 3 === 1 ? `R${k},Ann,Lee,,,,,"a note, with a comma"` : `R${k},,,,,(555) 010-2000,,`,
  );
  // Notes holding CRLF and LF line breaks and doubled quotes, to be cut between blocks.
  const rows = specs.map((s, k) =>
    (k % 10 === 3 ? [...s.cells.slice(0, 7), 'two\r\nlines, "quoted"\nand a third'] : s.cells).map(csvCell).join(','),
  );
  const mixed: string[] = [];
  rows.forEach((row, k) => {
    mixed.push(row);
    if (k % 9 === 4 && ties.length > 0) mixed.push(ties.shift()!);
    if (k % 7 === 2 && rejects.length > 0) mixed.push(rejects.shift()!);
  });
  lines = [HEADER.join(','), ...mixed, ...ties, ...rejects];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Matches `file` in one chunk read whole and in chunks of 7 rows parsed 5 bytes at a time, each with its matched people kept. */
async function bothWays(file: string) {
  const home = join(dir, `home-${file}`);
  const core = createCore({ homeDir: home, datasetPath: inject('datasetPath') });
  try {
    const ask = async (name: string, extra: Partial<MatchRequest>) => {
      const out = join(dir, `${file}-${name}.csv`);
      const summary = await core.match.match({ file: join(dir, file), out, fields: FIELDS, keepAs: `${file} ${name}`, ...extra });
      const kept = await core.lists.get(summary.list!);
      return { summary: { ...summary, list: null }, bytes: readFileSync(out), kept: { pids: kept.pids, matched: kept.matched } };
    };
    return { whole: await ask('whole', {}), chunked: await ask('chunked', { chunkRows: 7, parseBlock: 5 }) };
  } finally {
    await core.shutdown();
  }
}

describe('match in chunks', () => {
  it.each([
    { file: 'crlf-bom.csv', text: () => '\ufeff' + lines.join('\r\n') + '\r\n', gzip: false },
    { file: 'no-final-break.csv', text: () => lines.join('\n'), gzip: false },
    { file: 'no-final-break.csv.gz', text: () => lines.join('\n'), gzip: true },
  ])('gives $file back byte for byte as one chunk does, with the same summary and kept list', async ({ file, text, gzip }) => {
    const plain = Buffer.from(text(), 'utf8');
    writeFileSync(join(dir, file), gzip ? gzipSync(plain) : plain);
    const { whole, chunked } = await bothWays(file);

    // The file spans many chunks, and the summary has every kind of row in it.
    const rows = lines.length - 1;
    expect(whole.summary.rows).toBe(rows);
    expect(rows).toBeGreaterThan(7 * 20);
    expect(whole.summary.matched).toBeGreaterThan(100);
    expect(whole.summary.ambiguous).toBeGreaterThanOrEqual(tiePairs);
    expect(tiePairs).toBeGreaterThan(3);
    expect(whole.summary.refused).toBeGreaterThan(10);
    expect(whole.summary.rejected).toBe(CUSTOMER_REJECTS_KEPT + 5);
    expect(whole.summary.rejects).toHaveLength(CUSTOMER_REJECTS_KEPT);
    expect(chunked.summary).toEqual(whole.summary);

    expect(chunked.bytes.equals(whole.bytes)).toBe(true);
    // Each input row comes back first in its output row, line breaks as given (none after the last when the file has none).
    const out = whole.bytes.toString('utf8');
    expect(out.startsWith(`${text().split(/\r?\n/)[0]},MATCH,${FIELDS.join(',')}`)).toBe(true);
    expect(out.endsWith('\n')).toBe(text().endsWith('\n'));

    // The kept list holds every matched person, over all chunks.
    const parsed = Papa.parse<string[]>(out, { delimiter: ',' }).data.slice(1);
    expect(parsed.length).toBe(rows + (text().endsWith('\n') ? 1 : 0));
    const matchedPids = new Set(
      parsed
        .map((cells) => cells.slice(-FIELDS.length - 1))
        .filter(([method]) => method !== undefined && method !== '')
        .map(([, pid]) => pid),
    );
    expect(whole.kept.pids).toBe(matchedPids.size);
    expect(chunked.kept).toEqual(whole.kept);
  });

  it('writes nothing when a gzip breaks off after some chunks were written, and leaves an existing file as it was', async () => {
    // Some 2 MB unzipped, so gunzip hands over rows (several chunks of 5,000) before it finds the end missing.
    const body = Array.from({ length: 150 }, () => lines.slice(1).join('\n')).join('\n');
    const whole = gzipSync(Buffer.from(`${lines[0]}\n${body}\n`, 'utf8'));
    expect(Buffer.byteLength(body)).toBeGreaterThan(2 * 1024 * 1024);
    const file = join(dir, 'cut.csv.gz');
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.8)));
    const out = join(dir, 'cut-out.csv');
    writeFileSync(out, 'an earlier file\n');
    const core = createCore({ homeDir: join(dir, 'home-cut'), datasetPath: inject('datasetPath') });
    try {
      await expect(core.match.match({ file, out, fields: FIELDS, keepAs: 'cut', chunkRows: 5000 })).rejects.toThrow(
        'cut.csv.gz is not a whole gzip file.',
      );
      expect(await core.lists.list()).toEqual([]);
    } finally {
      await core.shutdown();
    }
    expect(readFileSync(out, 'utf8')).toBe('an earlier file\n');
    expect(readdirSync(dir).filter((f) => f.includes('cut-out'))).toEqual(['cut-out.csv']);
  });

  it('refuses a row that runs over the row bound (a quote never closed) rather than hold it, and writes nothing', async () => {
    const file = join(dir, 'unclosed.csv');
    const row = `Ann,Lee,"${'x'.repeat(1024)}\n`.repeat(Math.ceil(CUSTOMER_ROW_MAX_BYTES / 1024) + 1);
    writeFileSync(file, `first,last,pid\nAnn,Lee,p1\n${row}`);
    const out = join(dir, 'unclosed-out.csv');
    const core = createCore({ homeDir: join(dir, 'home-unclosed'), datasetPath: inject('datasetPath') });
    try {
      await expect(core.match.match({ file, out, fields: FIELDS })).rejects.toThrow(
        'Line 3 of unclosed.csv runs over 64 MB; is a quote not closed?',
      );
    } finally {
      await core.shutdown();
    }
    expect(readdirSync(dir).filter((f) => f.includes('unclosed-out'))).toEqual([]);
  });
});
