// A load writes every record as one TabSeparated line (tsvLine.ts), and the engine reads records back
// through tsv.ts and values.ts. Any string a record can hold (tabs, newlines, backslashes, NULs,
// quotes, any unicode) must survive that trip exactly, on the fast path (text surgery on the stored
// JSON) and on the slow one (JSON.parse), and so must the stored text itself, which the line carries
// whole after the record's PID rank; a real server must store what the line says (tsvLine.clickhouse.test.ts).
// The loader writes lines from the stored bytes (tsvBytes.ts): byte for byte the same lines.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { pidOfStoredBytes, pidOfStoredRecord } from '../../src/core/clickhouse/sharding';
import { tsvLineBytes, writeClickHouseTsv } from '../../src/core/clickhouse/tsvBytes';
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

it("the loader's byte path writes exactly the string path's line, into a buffer among others, and finds the same PID", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.oneof(record(hostileString, hexId), record(plainString, hexId)), fc.nat()), { minLength: 1, maxLength: 4 }),
      (rows) => {
        const stored = rows.map(([values]) => Buffer.from(JSON.stringify(values), 'utf8'));
        const out = Buffer.alloc(stored.reduce((n, b) => n + tsvLineBytes(b.length), 0));
        let end = 0;
        rows.forEach(([, rank], k) => (end = writeClickHouseTsv(stored[k]!, rank, out, end)));
        const expected = rows.map(([, rank], k) => storedRecordToClickHouseTsv(stored[k]!.toString('utf8'), rank)).join('');
        expect(out.subarray(0, end).toString('utf8')).toBe(expected);
        for (const bytes of stored) expect(pidOfStoredBytes(bytes)).toBe(pidOfStoredRecord(bytes.toString('utf8')));
      },
    ),
    { numRuns: 300 },
  );
});
