// A load writes every record as one TabSeparated line (tsvLine.ts), and the engine reads records back
// through tsv.ts and values.ts. Any string a record can hold (tabs, newlines, backslashes, NULs,
// quotes, any unicode) must survive that trip exactly, on the fast path (text surgery on the stored
// JSON) and on the slow one (JSON.parse), and so must the stored text itself, which the line carries
// whole after the record's PID rank; a real server must store what the line says (tsvLine.clickhouse.test.ts).
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { storedRecordToClickHouseTsv } from '../../src/core/clickhouse/tsvLine';
import { tsvUnescape } from '../../src/core/clickhouse/tsv';
import { recordValues } from '../../src/core/clickhouse/values';
import { FIELDS } from '../../src/shared/fields';
import { hexId, hostileString, plainString, record } from './support/tsvRecords';

/** The line's fields, read the way the engine reads an answer's row; its rank and stored text checked. */
function readBack(line: string, text: string, rank: number): readonly (string | number)[] {
  expect(line.endsWith('\n')).toBe(true);
  expect(line.indexOf('\n')).toBe(line.length - 1);
  const row = line.slice(0, -1).split('\t');
  expect(row).toHaveLength(FIELDS.length + 2);
  expect(row[FIELDS.length]).toBe(String(rank));
  expect(tsvUnescape(row[FIELDS.length + 1]!)).toBe(text);
  return recordValues(row.slice(0, FIELDS.length));
}

it('a record with hostile strings becomes one line of 392 fields that reads back as itself', () => {
  fc.assert(
    fc.property(record(hostileString, hexId), fc.nat(), (values, rank) => {
      // The stored record is the JSON text, so what it says (-0 is written 0) is what must come back.
      const text = JSON.stringify(values);
      expect(readBack(storedRecordToClickHouseTsv(text, rank), text, rank)).toEqual(JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

it('a record with nothing to escape (the fast path) reads back as itself, -0 and long decimals included', () => {
  fc.assert(
    fc.property(record(plainString, hexId), fc.nat(), (values, rank) => {
      const text = JSON.stringify(values);
      expect(text.includes('\\')).toBe(false);
      expect(readBack(storedRecordToClickHouseTsv(text, rank), text, rank)).toEqual(JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});
