// The literal encoder is the only way values reach ClickHouse SQL (18.16 has no query parameters),
// so it is fuzzed against a real server: every string, however hostile (quotes, backslashes, NULs,
// control characters, any unicode), must come back from `SELECT <literal>` as exactly itself, and
// a literal must never end early and let the rest run as SQL. (Its rules without a server:
// sqlLiteral.test.ts.)
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { sqlString } from '../../src/core/clickhouse/sqlLiteral';
import { tsvUnescape } from '../../src/core/clickhouse/tsv';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';

const HOSTILE = [
  "'",
  "\\'",
  '\\',
  "''",
  "' OR 1=1 --",
  "'); DROP TABLE x; --",
  '\u0000',
  '\\0',
  '\n',
  '\r\n',
  '\t',
  '"',
  '`',
  '\x7f',
  '\u2028',
  '😀',
  'é',
  '\uFFFD',
  '\\x41',
  '?',
  '{s:String}',
  '$1',
];

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Strings built from hostile pieces and arbitrary unicode (well-formed: what a stored value can be). */
const hostileString = fc
  .array(
    fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 8 })),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''))
  .filter((s) => !LONE_SURROGATE.test(s));

describeClickHouse('sqlString against a real ClickHouse', () => {
  const clickhouse = useLocalClickHouse();

  it('round-trips hostile strings exactly, one literal per row of a real query', async () => {
    const connection = new ClickHouseConnection(clickhouse().singleServe);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(hostileString, { minLength: 1, maxLength: 20 }), async (values) => {
          // Each value beside its length in UTF-8, so a literal cut short or run on would show.
          const rows = await connection.rows(
            `SELECT arrayJoin([${values.map((v) => `(${sqlString(v)}, toUInt32(${Buffer.byteLength(v)}))`).join(', ')}]) AS t, t.1, t.2`,
          );
          expect(rows.map((r) => tsvUnescape(r[1]!))).toEqual(values);
          expect(rows.map((r) => Number(r[2]))).toEqual(values.map((v) => Buffer.byteLength(v)));
        }),
        { numRuns: 300, seed: 15 },
      );
    } finally {
      await connection.close();
    }
  });

  it('writes a lone surrogate as bytes no stored value holds, so it matches nothing (not U+FFFD)', async () => {
    const connection = new ClickHouseConnection(clickhouse().singleServe);
    try {
      const [[equal, length]] = (await connection.rows(
        `SELECT ${sqlString('a\uD800b')} = ${sqlString('a\uFFFDb')}, length(${sqlString('\uDC00')})`,
      )) as [[string, string]];
      expect(equal).toBe('0');
      expect(length).toBe('3');
    } finally {
      await connection.close();
    }
  });
});
