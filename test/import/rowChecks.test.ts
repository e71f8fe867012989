// RowChecker.checkRow (a row read from its text, its cells plain or quoted) against RowChecker.check
// (the same row split into cells, the rules as written): over hostile cells (spaces, signs, leading zeros,
// numbers past 2^53, lower case, letters that change length when upper-cased, wrong cell counts)
// both must accept the same rows with the same values, and refuse the others with the same field
// and reason, row after row on one checker each (`values` is reused).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitSimpleLine } from '../../src/core/import/source/quotedLines';
import { mapHeader, RowChecker } from '../../src/core/import/source/rowRules';

// Every kind of column: the required three, whole numbers (AGE has a range of its own), decimals
// with limits and without, text, and a column that is not a field (ignored).
const HEADER = ['PID', 'STATE', 'GENDER', 'AGE', 'LOR', 'ZIP', 'FNAME', 'LATITUDE', 'LONGITUDE', 'NOTES', 'CITY'];

const hostile = fc.constantFrom(
  '',
  ' ',
  '0',
  '00',
  '007',
  '120',
  '121',
  '999999999999999',
  '9007199254740991',
  '9007199254740992',
  '12345678901234567890',
  '00000000000000000000005',
  '+4',
  '-3',
  '2.5',
  '1e3',
  '.5',
  ' 7',
  '7 ',
  '\t8',
  '4A',
  'CA',
  'abc',
  'x y',
  'é',
  'ß',
  'ﬁ',
  '\u00a0',
  "5'10",
  'a0000000000000000000000000000001',
  'A000000000000000000000000000001',
);

/** Cells a quoted field writes differently: quotes (doubled when quoted), a delimiter of each kind, a line break. */
const awkward = fc.constantFrom('"', 'a"b', '""', '"7"', 'x,y', 'x\ty', 'x|y', '7,5', 'a\nb');

/** Cells that pass for each column of HEADER, in several spellings, so that many rows pass whole. */
const passing: Record<string, string[]> = {
  PID: ['A0000000000000000000000000000001', 'b00000000000000000000000000000c2', ' C0000000000000000000000000000003 '],
  STATE: ['CO', 'ca', ' NY'],
  GENDER: ['F', 'm', 'M '],
  AGE: ['', '0', '45', '120', '007'],
  LOR: ['', '0', '5', '123456789012345', '9007199254740991', '0000000000000000012'],
  ZIP: ['', '01001', ' 80202 '],
  FNAME: ['', 'ANN', 'bob', 'Zoë', 'straße'],
  LATITUDE: ['', '0', '39.7392', '-90', '+1e1'],
  LONGITUDE: ['', '-104.9903', '180', '-0'],
  NOTES: ['', 'anything at all', '-3'],
  CITY: ['', 'DENVER', 'ﬁeld'],
};
const cellOf = (column: string): fc.Arbitrary<string> =>
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...passing[column]!) }, { weight: 1, arbitrary: hostile });

/** RowParser.upperCase for a row alone: nothing in it changes in toUpperCase(). */
const upperCaseOf = (text: string): boolean => !/[a-z\u0080-\uffff]/.test(text);

/**
 * Expects `got` (fromText's checkRow of a row) to be fromCells's check of the row's `cells`: the same
 * verdict, and the same values, or the same field and reason. 1 when the row passed.
 */
function sameVerdict(fromText: RowChecker, got: boolean | null, fromCells: RowChecker, cells: string[], upperCase: boolean): number {
  const accepted = fromCells.check(cells, upperCase);
  expect(got).toBe(accepted);
  if (accepted) expect(fromText.values).toEqual(fromCells.values);
  else expect([fromText.field, fromText.reason]).toEqual([fromCells.field, fromCells.reason]);
  return accepted ? 1 : 0;
}

describe('RowChecker.checkRow against check over the split row', () => {
  it('accepts and refuses the same rows, with the same values, field and reason', () => {
    let passed = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(',', '\t', '|'),
        fc.array(
          fc.record({
            cells: fc.tuple(...HEADER.map(cellOf)),
            // Now and then a cell fewer or more than the header (an empty one too).
            width: fc.constantFrom(0, 0, 0, 0, 0, 0, -1, 1),
            extra: fc.constantFrom('', '1', 'x'),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        (delimiter, rows) => {
          const header = mapHeader('test.csv', HEADER);
          const fromText = new RowChecker(header);
          const fromCells = new RowChecker(header);
          for (const row of rows) {
            if (row.cells.some((c) => c.includes(delimiter))) continue; // not a row of these cells
            const written = row.width < 0 ? row.cells.slice(0, -1) : row.width > 0 ? [...row.cells, row.extra] : row.cells;
            const text = written.join(delimiter);
            const upperCase = upperCaseOf(text);
            passed += sameVerdict(fromText, fromText.checkRow(text, delimiter, upperCase), fromCells, text.split(delimiter), upperCase);
          }
        },
      ),
      { numRuns: 500 },
    );
    // Most rows must pass whole, or the values of passing rows would hardly be compared.
    expect(passed).toBeGreaterThan(500);
  });

  it('reads quoted cells too ("A","1"): the same as check over the cells, or null where papaparse must read the row', () => {
    let passed = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(',', '\t', '|'),
        fc.array(
          fc.record({
            cells: fc.tuple(
              ...HEADER.map((column) => fc.oneof({ weight: 30, arbitrary: cellOf(column) }, { weight: 1, arbitrary: awkward })),
            ),
            // How each cell is written: as it is (when that reads back the same) or quoted.
            quoted: fc.array(fc.boolean(), { minLength: HEADER.length, maxLength: HEADER.length }),
            // In about one row of four, one cell with text after its closing quote.
            flawed: fc.integer({ min: -3 * HEADER.length, max: HEADER.length - 1 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        (delimiter, rows) => {
          const header = mapHeader('test.csv', HEADER);
          const fromText = new RowChecker(header);
          const fromCells = new RowChecker(header);
          for (const row of rows) {
            const fields = row.cells.map((cell, k) => {
              if (k === row.flawed) return `"${cell}"x`;
              const plainReadsBack = !cell.includes(delimiter) && !cell.startsWith('"');
              return plainReadsBack && !row.quoted[k] ? cell : `"${cell.replace(/"/g, '""')}"`;
            });
            const text = fields.join(delimiter);
            const upperCase = upperCaseOf(text);
            const cells = splitSimpleLine(text, 0, text.length, delimiter);
            const got = fromText.checkRow(text, delimiter, upperCase);
            if (!cells) {
              expect(got).toBeNull();
              refused++;
              continue;
            }
            expect(cells).toEqual(row.cells);
            passed += sameVerdict(fromText, got, fromCells, cells, upperCase);
          }
        },
      ),
      { numRuns: 500 },
    );
    expect(passed).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  });

  it('reads whole numbers where they stand: leading zeros dropped, empty is 0, the range kept', () => {
    const header = mapHeader('test.csv', ['PID', 'STATE', 'GENDER', 'AGE', 'LOR']);
    const checker = new RowChecker(header);
    const pid = 'A0000000000000000000000000000001';
    expect(checker.checkRow(`${pid},CO,F,007,`, ',', true)).toBe(true);
    expect([checker.values[header.fieldOf[3]!], checker.values[header.fieldOf[4]!]]).toEqual([7, 0]);
    expect(checker.checkRow(`${pid},CO,F,,9007199254740991`, ',', true)).toBe(true);
    expect(checker.values[header.fieldOf[4]!]).toBe(9007199254740991);
    expect(checker.checkRow(`${pid},CO,F,121,1`, ',', true)).toBe(false);
    expect([checker.field, checker.reason]).toEqual(['AGE', 'AGE values must be whole numbers of years from 0 to 120, not "121"']);
    expect(checker.checkRow(`${pid},CO,F,1,2,3`, ',', true)).toBe(false);
    expect([checker.field, checker.reason]).toEqual(['', 'has 6 fields where the header has 5']);
  });

  it('reads quoted cells where they stand, and leaves a row with text after a closing quote to papaparse', () => {
    const header = mapHeader('test.csv', ['PID', 'STATE', 'GENDER', 'AGE', 'LOR']);
    const checker = new RowChecker(header);
    const pid = 'A0000000000000000000000000000001';
    expect(checker.checkRow(`"${pid}","CO","F","007",""`, ',', true)).toBe(true);
    expect([checker.values[header.fieldOf[3]!], checker.values[header.fieldOf[4]!]]).toEqual([7, 0]);
    expect(checker.checkRow(`"${pid}",CO,"F","1,5",2`, ',', true)).toBe(false);
    expect(checker.field).toBe('AGE');
    // Each would read as five cells that pass if the character after the closing quote were skipped.
    expect(checker.checkRow(`"${pid}"xCO,F,1,2`, ',', true)).toBeNull();
    expect(checker.checkRow(`"${pid}","CO","F","1"x2`, ',', true)).toBeNull();
    expect(checker.checkRow(`"${pid}","C""O",F,1,2`, ',', true)).toBeNull();
    // A quote not closed on the line: the field goes on past a line break, which only papaparse follows.
    expect(checker.checkRow(`"${pid}","CO","F","1","2`, ',', true)).toBeNull();
  });
});
