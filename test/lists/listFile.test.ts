// The list file reader on its own: delimiters, header synonyms, a unit column, quoted line breaks
// (line numbers stay right), a byte-order mark, one headerless column; rejects carry no content.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readListFile } from '../../src/core/lists/listFile';

const dir = mkdtempSync(join(tmpdir(), 'audience-desk-listfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function read(text: string) {
  const file = join(dir, 'list.txt');
  writeFileSync(file, text);
  const c = readListFile(file);
  return { ...c, pids: [...c.pids], phones: [...c.phones], addresses: [...c.addresses] };
}

describe('readListFile', () => {
  it.each([
    ['comma', ','],
    ['tab', '\t'],
    ['pipe', '|'],
  ])('reads a %s-separated file with synonyms and a unit column', (_name, d) => {
    const c = read(
      [
        ['Street Address', 'Address Line 2', 'postal_code', 'Cell Phone', 'Home Phone'].join(d),
        ['12 West Oak Boulevard', 'Suite 5', '02134-0001', '617 555 0101', ''].join(d),
        ['', '', '', '', '(617) 555-0102'].join(d),
      ].join('\n'),
    );
    expect(c).toMatchObject({ rows: 2, rejected: 0, addresses: ['12 W OAK BLVD STE 5|02134'], phones: ['6175550101', '6175550102'] });
  });

  it('counts lines inside quoted cells, and a byte-order mark is not part of the header', () => {
    const c = read('\ufeffADDRESS,ZIP,PHONE\r\n"12 Oak St\r\nApt 4",02134,\r\n,,12\r\n"1 Elm\nRoad",,\r\n,,6175550103\r\n');
    expect(c.addresses).toEqual(['12 OAK ST APT 4|02134']);
    expect(c.phones).toEqual(['6175550103']);
    expect(c.rejects).toEqual([
      { line: 4, reason: 'phone is not 10 digits' },
      { line: 5, reason: 'address without a ZIP' },
    ]);
    expect(c.rows).toBe(4);
  });

  it('reads one column without a header as PIDs or phones', () => {
    const c = read('014106c237b3688990c0391137772ee7\n+1 617 555 0104\nhello\n\n');
    expect(c).toMatchObject({ rows: 4, pids: ['014106C237B3688990C0391137772EE7'], phones: ['6175550104'], rejected: 2 });
    expect(c.rejects).toEqual([
      { line: 3, reason: 'not a PID (32 hexadecimal characters) or a phone (10 digits)' },
      { line: 4, reason: 'empty row' },
    ]);
  });

  it('keeps each value once and says nothing of a rejected row but its line and why', () => {
    const c = read(
      'PID,ZIP,ADDRESS\nABCDEF,99501,\n014106C237B3688990C0391137772EE7,,\n014106c237b3688990c0391137772ee7,,\n,1,1 Main St\n',
    );
    expect(c.pids).toHaveLength(1);
    expect(c.rejects).toEqual([
      { line: 2, reason: 'PID is not 32 hexadecimal characters; ZIP without an address' },
      { line: 5, reason: 'ZIP is not 5 digits' },
    ]);
    expect(JSON.stringify(c.rejects)).not.toMatch(/ABCDEF|99501|Main/);
  });
});
