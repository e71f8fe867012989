// The papaparse-based row reader against an oracle: rows are written out by the test itself (any
// delimiter and line ending, quoted where needed or at random, blank lines, a BOM), so every row's
// cells, physical start line and raw text are known; the reader must give them back whatever the
// chunking. Then the cases papaparse reports as errors: unclosed and malformed quotes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitSimpleLine } from '../../src/core/import/source/quotedLines';
import { MALFORMED_QUOTE, RowParser as RowReader, UNCLOSED_QUOTE } from '../../src/core/import/source/rowParser';
import type { Newline } from '../../src/core/import/types';

interface Row {
  cells: string[];
  line: number;
  raw: string;
  utf8?: boolean;
}
interface Broken {
  line: number;
  raw: string;
  reason: string;
}

/**
 * `lines`: the sink takes rows as their text (RowSink.line) and splits them itself, refusing the
 * rows whose quotes need papaparse; every result must be the same as without.
 */
function read(
  text: string,
  delimiter: string,
  newline: Newline,
  cuts: number[] = [],
  lines = false,
): { rows: Row[]; broken: Broken[]; lineRows: number } {
  const rows: Row[] = [];
  const broken: Broken[] = [];
  let lineRows = 0;
  const row = (cells: string[], line: number, utf8: boolean): number =>
    rows.push({ cells, line, raw: reader.rawRow(), ...(utf8 ? {} : { utf8 }) });
  const reader: RowReader = new RowReader(
    delimiter,
    newline,
    { line: 1, fileStart: true },
    {
      row,
      ...(lines
        ? {
            line: (text: string, line: number, utf8: boolean) => {
              const cells = splitSimpleLine(text, 0, text.length, delimiter);
              if (!cells) return false;
              lineRows++;
              expect(text).toBe(reader.rawRow());
              row(cells, line, utf8);
              return true;
            },
          }
        : {}),
      broken: (line, raw, reason) => broken.push({ line, raw, reason }),
    },
  );
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    reader.push(text.slice(at, cut));
    at = cut;
  }
  reader.push(text.slice(at));
  reader.end();
  return { rows, broken, lineRows };
}

/** read() both ways (rows as cells, and rows as text split by the sink), which must agree. */
function readBoth(text: string, delimiter: string, newline: Newline, cuts: number[] = []): { rows: Row[]; broken: Broken[] } {
  const { rows, broken } = read(text, delimiter, newline, cuts);
  const split = read(text, delimiter, newline, cuts, true);
  expect({ rows: split.rows, broken: split.broken }).toEqual({ rows, broken });
  return { rows, broken };
}

/** Physical line of `offset`: 1 + the line breaks before it (CRLF, LF, lone CR: one each). */
const lineAt = (text: string, offset: number): number => 1 + (text.slice(0, offset).match(/\r\n|\r|\n/g)?.length ?? 0);

const cellChars = fc.constantFrom('a', 'B', ' ', ',', '\t', '|', '"', '\r', '\n', 'é', '😀', '0', '\uFFFD');
const cell = fc.array(cellChars, { maxLength: 6 }).map((cs) => cs.join(''));

describe('RowReader against rows written by the test', () => {
  it('gives back every row: cells, start line and raw text, whatever the chunks', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(',', '\t', '|'),
        fc.constantFrom<Newline>('\r\n', '\n', '\r'),
        fc.array(fc.record({ cells: fc.array(cell, { minLength: 1, maxLength: 5 }), blanks: fc.nat(2), quoteAll: fc.boolean() }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (delimiter, newline, rows, bom, finalNewline, cutSeeds) => {
          let text = bom ? '\uFEFF' : '';
          const expected: Row[] = [];
          rows.forEach((r, i) => {
            text += newline.repeat(r.blanks);
            const fields = r.cells.map((c) => {
              const needs =
                c.includes(delimiter) || c.includes('"') || c.includes('\r') || c.includes('\n') || (r.cells.length === 1 && c === '');
              return needs || r.quoteAll ? `"${c.replace(/"/g, '""')}"` : c;
            });
            const raw = fields.join(delimiter);
            expected.push({ cells: r.cells, line: lineAt(text, text.length), raw, ...(raw.includes('\uFFFD') ? { utf8: false } : {}) });
            text += raw + (i < rows.length - 1 || finalNewline ? newline : '');
          });
          const cuts = cutSeeds.map((n) => n % (text.length + 1));
          const got = readBoth(text, delimiter, newline, cuts);
          expect(got.broken).toEqual([]);
          expect(got.rows).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('hands text with no quote to RowSink.line, row for row', () => {
    // Stray line-break characters (a lone CR or LF where the file's line end is another) are data.
    const plain = fc.array(fc.constantFrom('a', 'B', ' ', ',', '\t', '|', '\r', '\n', 'é', '😀', '0', '\uFFFD'), { maxLength: 40 });
    fc.assert(
      fc.property(
        fc.constantFrom(',', '\t', '|'),
        fc.constantFrom<Newline>('\r\n', '\n', '\r'),
        fc.array(plain, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (delimiter, newline, lines, cutSeeds) => {
          const text = lines.map((l) => l.join('')).join(newline);
          const cuts = cutSeeds.map((n) => n % (text.length + 1));
          const { rows } = readBoth(text, delimiter, newline, cuts);
          expect(read(text, delimiter, newline, cuts, true).lineRows).toBe(rows.length);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('splits lines quoted throughout itself, and leaves to papaparse only the rows that need it', () => {
    const text = 'H1,H2,H3\n"a","b,c",""\n"x""y","2",3\n"multi\nline","q",""\n"p","",r\n"s" ,t,u\nv,w"x,"y"\n';
    const expected = [
      [1, ['H1', 'H2', 'H3']],
      [2, ['a', 'b,c', '']],
      [3, ['x"y', '2', '3']],
      [4, ['multi\nline', 'q', '']],
      [6, ['p', '', 'r']],
      [7, ['s', 't', 'u']], // papaparse allows spaces between a closing quote and the delimiter
      [8, ['v', 'w"x', 'y']],
    ];
    for (let cut = 0; cut <= text.length; cut++) {
      const { rows, broken } = readBoth(text, ',', '\n', [cut]);
      expect(broken.map((b) => b.line)).toEqual([]);
      expect(rows.map((r) => [r.line, r.cells])).toEqual(expected);
    }
    // A doubled quote, a line break inside quotes and text after a closing quote go to papaparse;
    // every other row, the header's included, to RowSink.line.
    expect(read(text, ',', '\n', [], true).lineRows).toBe(4);
  });

  it('takes a quote inside an unquoted field literally, and a stray CR as data but a line break', () => {
    const { rows } = readBoth('PID,H\r\nA,5\'10"\r\nB,a"b"c\r\n', ',', '\r\n');
    expect(rows.map((r) => r.cells)).toEqual([
      ['PID', 'H'],
      ['A', '5\'10"'],
      ['B', 'a"b"c'],
    ]);
    const lf = readBoth('A,B\nC,D\r\nE,F\n', ',', '\n');
    expect(lf.rows).toEqual([
      { cells: ['A', 'B'], line: 1, raw: 'A,B' },
      { cells: ['C', 'D\r'], line: 2, raw: 'C,D\r' },
      { cells: ['E', 'F'], line: 3, raw: 'E,F' },
    ]);
  });

  it('reads a row of one quoted empty field ("") as a row, and a blank line as nothing', () => {
    const { rows } = readBoth('A,B\n\n""\n   \nC,D\n\n', ',', '\n');
    expect(rows).toEqual([
      { cells: ['A', 'B'], line: 1, raw: 'A,B' },
      { cells: [''], line: 3, raw: '""' },
      { cells: ['   '], line: 4, raw: '   ' },
      { cells: ['C', 'D'], line: 5, raw: 'C,D' },
    ]);
  });
});

describe('RowReader.upperCase', () => {
  it('is true only while the text holds nothing that toUpperCase() would change', () => {
    const seen: boolean[] = [];
    const reader: RowReader = new RowReader(
      ',',
      '\n',
      { line: 1, fileStart: true },
      { row: () => seen.push(reader.upperCase), broken: () => undefined },
    );
    for (const chunk of ['A,B\n1,"X Y"\n', 'a,B\n', 'É,B\n', 'Z,9\n']) reader.push(chunk);
    reader.end();
    expect(seen).toEqual([true, true, false, false, true]);
  });
});

describe('RowReader on quote errors', () => {
  it('makes the rest of the text one broken row when a quote is never closed', () => {
    for (const cuts of [[], [20], [5, 24, 30]]) {
      const { rows, broken } = read('H1,H2\r\nA,"x\r\nB,C\r\nD,E\r\n', ',', '\r\n', cuts);
      expect(rows).toEqual([{ cells: ['H1', 'H2'], line: 1, raw: 'H1,H2' }]);
      expect(broken).toEqual([{ line: 2, raw: 'A,"x\r\nB,C\r\nD,E', reason: UNCLOSED_QUOTE }]);
    }
  });

  it('ends a row with a malformed quote ("Bob" Smith) at the line of that quote and reads on', () => {
    const text = 'H1,H2,H3\nA,"Bob" Smith,1\nB,plain,2\nC,"ok, fine",3\n';
    for (const cuts of [[], [12], [13, 30], [40]]) {
      const { rows, broken } = read(text, ',', '\n', cuts);
      expect(broken).toEqual([{ line: 2, raw: 'A,"Bob" Smith,1', reason: MALFORMED_QUOTE }]);
      expect(rows.map((r) => [r.line, r.cells])).toEqual([
        [1, ['H1', 'H2', 'H3']],
        [3, ['B', 'plain', '2']],
        [4, ['C', 'ok, fine', '3']],
      ]);
    }
  });

  it('counts the lines of a malformed row that spans lines, and handles one on the last line', () => {
    const { rows, broken } = read('H\n"a\nb"c,1\nD,2\n"e"f', ',', '\n');
    expect(broken).toEqual([
      { line: 2, raw: '"a\nb"c,1', reason: MALFORMED_QUOTE },
      { line: 5, raw: '"e"f', reason: MALFORMED_QUOTE },
    ]);
    expect(rows.map((r) => [r.line, r.cells])).toEqual([
      [1, ['H']],
      [4, ['D', '2']],
    ]);
  });

  it('an unclosed quote followed by a later quoted field is a malformed row, not the rest of the file', () => {
    const { rows, broken } = read('H1,H2\nA,"M\nB,"x",D\nE,F\n', ',', '\n');
    expect(broken).toEqual([{ line: 2, raw: 'A,"M\nB,"x",D', reason: MALFORMED_QUOTE }]);
    expect(rows.map((r) => [r.line, r.cells])).toEqual([
      [1, ['H1', 'H2']],
      [4, ['E', 'F']],
    ]);
  });
});
