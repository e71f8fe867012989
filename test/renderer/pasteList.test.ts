// Pasted lists: split where an analyst means, every value checked against the state's own values,
// unknown and out-of-state values flagged and left out, 3-digit ZIP prefixes expanded.
import { describe, expect, it } from 'vitest';
import { expandZipPrefix, readPastedList, splitNames, splitPasted } from '../../src/renderer/src/lib/pasteList';

const NY_ZIPS = ['10025', '10027', '11201', '11206', '11208', '14201', '10001'];
const known = (values: string[], complete = true) => ({ values: new Set(values), complete });

describe('splitPasted', () => {
  it('separates at commas, semicolons, tabs and line breaks, dropping empty pieces', () => {
    expect(splitPasted('11208, 11206,\n10025\t11201;;\r\n ,')).toEqual(['11208', '11206', '10025', '11201']);
    expect(splitPasted('  ')).toEqual([]);
  });
});

describe('expandZipPrefix', () => {
  it('gives the ZIPs that start with the prefix, sorted, and nothing for a bad prefix', () => {
    expect(expandZipPrefix('100', NY_ZIPS)).toEqual(['10001', '10025', '10027']);
    expect(expandZipPrefix('1000', NY_ZIPS)).toEqual([]);
    expect(expandZipPrefix('902', NY_ZIPS)).toEqual([]);
  });
});

describe('splitNames', () => {
  const cities = new Set(['NEW YORK', 'BUFFALO', 'NEW ROCHELLE', 'YORK']);
  const isKnown = (s: string) => cities.has(s.toUpperCase());
  it('keeps a known name whole and splits words into the longest known names', () => {
    expect(splitNames('New York', isKnown)).toEqual([{ text: 'New York', known: true }]);
    expect(splitNames('New York Buffalo New Rochelle', isKnown)).toEqual([
      { text: 'New York', known: true },
      { text: 'Buffalo', known: true },
      { text: 'New Rochelle', known: true },
    ]);
    expect(splitNames('Buffalo Springfeld Nowhere York', isKnown)).toEqual([
      { text: 'Buffalo', known: true },
      { text: 'Springfeld Nowhere', known: false },
      { text: 'York', known: true },
    ]);
  });
});

describe('readPastedList', () => {
  it('reads ZIPs separated by commas and spaces as separate values (not one that matches nobody)', () => {
    const r = readPastedList('ZIP', 'NY', '11208, 11206, 10025 11201', known(NY_ZIPS));
    expect(r).toEqual({ values: ['11208', '11206', '10025', '11201'], problems: [], unsure: [] });
  });

  it('flags an out-of-state ZIP and a malformed one, and leaves them out', () => {
    const r = readPastedList('ZIP', 'NY', '90210\nabcde, 11201, 11201-1234, 1120', known(NY_ZIPS));
    expect(r.values).toEqual(['11201']);
    expect(r.problems).toEqual([
      { text: '90210', reason: 'no one in NY lives in ZIP 90210' },
      { text: 'abcde', reason: expect.stringMatching(/^not a ZIP/) },
      { text: '1120', reason: expect.stringMatching(/^not a ZIP/) },
    ]);
  });

  it('expands a 3-digit prefix to the state’s ZIPs and flags a prefix nobody has', () => {
    const r = readPastedList('ZIP', 'NY', '100 142, 902', known(NY_ZIPS));
    expect(r.values).toEqual(['10001', '10025', '10027', '14201']);
    expect(r.problems).toEqual([{ text: '902', reason: "no ZIP of NY's people starts with 902" }]);
  });

  it('leaves well-formed values missing from a partial list for the dataset to decide', () => {
    const r = readPastedList('ZIP', 'NY', '11201 12345 abc', known(['11201'], false));
    expect(r.values).toEqual(['11201']);
    expect(r.unsure).toEqual(['12345']);
    expect(r.problems.map((p) => p.text)).toEqual(['abc']);
  });

  it('reads counties by name, code or FIPS, and says where an out-of-state county lies', () => {
    const r = readPastedList(
      'CNTYCD',
      'NY',
      'Kings County, queens\n061 36005; Los Angeles, Hamilton, Narnia',
      known(['047', '081', '061', '005']),
    );
    expect(r.values).toEqual(['047', '081', '061', '005']);
    expect(r.problems).toEqual([
      { text: 'Los Angeles', reason: 'a county of CA, not NY' },
      { text: 'Hamilton', reason: 'no one in NY lives in Hamilton (county 041)' },
      { text: 'Narnia', reason: 'not a county of NY' },
    ]);
  });

  it('reads cities without regard to case, names of several words whole, and flags unknown ones', () => {
    const r = readPastedList('CITY', 'NY', 'new york buffalo, Brooklyn\nLos Angeles', known(['NEW YORK', 'BUFFALO', 'BROOKLYN']));
    expect(r.values).toEqual(['NEW YORK', 'BUFFALO', 'BROOKLYN']);
    expect(r.problems).toEqual([{ text: 'Los Angeles', reason: 'no one in NY has this value of CITY' }]);
  });

  it('repeats a value once', () => {
    expect(readPastedList('ZIP', 'NY', '11201 11201, 112', known(NY_ZIPS)).values).toEqual(['11201', '11206', '11208']);
  });
});
