// A load writes every record as one TabSeparated line (tsvLine.ts), and the engine reads records back
// through tsv.ts and values.ts. Any string a record can hold (tabs, newlines, backslashes, NULs,
// quotes, any unicode) must survive that trip exactly, on the fast path (text surgery on the stored
// JSON) and on the slow one (JSON.parse), and a real server must store what the line says.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { CREATE_SETTINGS, createTableSql, STORED_COLUMNS_SQL } from '../../src/core/clickhouse/schema';
import { sqlIdentifier } from '../../src/core/clickhouse/sqlLiteral';
import { storedRecordToClickHouseTsv } from '../../src/core/clickhouse/tsvLine';
import { recordValues } from '../../src/core/clickhouse/values';
import { FIELDS } from '../../src/shared/fields';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const HOSTILE = ['\t', '\n', '\r', '\\', '\\t', '\0', '"', "'", ',', '","', '\b', '\f', '\x7f', '😀', 'é', '\u2028', ']', '['];

const hostileString = fc
  .array(
    fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 })),
    {
      maxLength: 6,
    },
  )
  .map((parts) => parts.join(''))
  .filter((s) => !LONE_SURROGATE.test(s));
const hexId = fc.uuid().map((u) => u.replace(/-/g, ''));
/** Strings with nothing JSON escapes, so the whole record takes the fast path. */
const plainString = fc.string({ maxLength: 12 }).map((s) => [...s].map((c) => (c === '\\' || c === '"' || c < ' ' ? 'x' : c)).join(''));

function record(strings: fc.Arbitrary<string>, pid: fc.Arbitrary<string>): fc.Arbitrary<Array<string | number>> {
  return fc
    .tuple(
      pid,
      fc.array(strings, { minLength: FIELDS.length, maxLength: FIELDS.length }),
      fc.array(fc.integer({ min: -1e9, max: 1e9 }), { minLength: FIELDS.length, maxLength: FIELDS.length }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    )
    .map(([id, texts, ints, lat, lon]) =>
      FIELDS.map((f, i) => {
        if (f.name === 'PID') return id;
        if (f.name === 'STATE') return 'CA';
        if (f.type === 'number') return f.name === 'LATITUDE' ? lat : lon;
        return f.type === 'integer' ? ints[i]! : texts[i]!;
      }),
    );
}

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

describeClickHouse('TabSeparated lines into a real ClickHouse table', () => {
  const clickhouse = useLocalClickHouse('tsv_tests');

  it('stores exactly what each line says, read back as the engine reads records', async () => {
    const connection = new ClickHouseConnection(clickhouse().singleLoad);
    const table = `${sqlIdentifier('tsv_tests')}.${sqlIdentifier('people_lines')}`;
    try {
      await connection.command('CREATE DATABASE IF NOT EXISTS tsv_tests');
      await connection.command(createTableSql(table), CREATE_SETTINGS);
      const records = fc.sample(record(fc.oneof(hostileString, plainString), hexId), { numRuns: 200, seed: 21 });
      await connection.insertTsv(
        table,
        (async function* () {
          yield records.map((r) => storedRecordToClickHouseTsv(JSON.stringify(r))).join('');
        })(),
      );
      const rows = await connection.rows(`SELECT ${STORED_COLUMNS_SQL} FROM ${table} ORDER BY PID`);
      const byPid = (a: readonly (string | number)[], b: readonly (string | number)[]) => String(a[0]).localeCompare(String(b[0]));
      expect(rows.map(recordValues).sort(byPid)).toEqual(records.map((r) => JSON.parse(JSON.stringify(r)) as typeof r).sort(byPid));
    } finally {
      await connection.command(`DROP TABLE IF EXISTS ${table}`);
      await connection.close();
    }
  }, 60_000);
});
