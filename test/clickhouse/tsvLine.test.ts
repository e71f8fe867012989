// A load writes every record as one TabSeparated line (tsvLine.ts), and the engine reads records back
// through tsv.ts and values.ts. Any string a record can hold (tabs, newlines, backslashes, NULs,
// quotes, any unicode) must survive that trip exactly, on the fast path (text surgery on the stored
// JSON) and on the slow one (JSON.parse), and a real server must store what the line says (tsvLine.clickhouse.test.ts).
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { storedRecordToClickHouseTsv } from '../../src/core/clickhouse/tsvLine';
import { recordValues } from '../../src/core/clickhouse/values';
import { FIELDS } from '../../src/shared/fields';
import { hexId, hostileString, plainString, record } from './support/tsvRecords';

/** The line's fields, read the way the engine reads an answer's row. */
function readBack(line: string): readonly (string | number)[] {
  expect(line.endsWith('\n')).toBe(true);
  expect(line.indexOf('\n')).toBe(line.length - 1);
  const row = line.slice(0, -1).split('\t');
  expect(row).toHaveLength(FIELDS.length);
  return recordValues(row);
}

it('a record with hostile strings becomes one line of 392 fields that reads back as itself', () => {
  fc.assert(
    fc.property(record(hostileString, hexId), (values) => {
      // The stored record is the JSON text, so what it says (-0 is written 0) is what must come back.
      const text = JSON.stringify(values);
      expect(readBack(storedRecordToClickHouseTsv(text))).toEqual(JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

it('a record with nothing to escape (the fast path) reads back as itself, -0 and long decimals included', () => {
  fc.assert(
    fc.property(record(plainString, hexId), (values) => {
      const text = JSON.stringify(values);
      expect(text.includes('\\')).toBe(false);
      expect(readBack(storedRecordToClickHouseTsv(text))).toEqual(JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});
