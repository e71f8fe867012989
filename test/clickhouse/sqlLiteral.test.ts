// The literal encoder's rules, checked without a server: quotes and backslashes escaped so a literal
// cannot end early, and values it cannot write safely refused. Against a real ClickHouse:
// sqlLiteral.clickhouse.test.ts.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { isPlainIdentifier, sqlIdentifier, sqlNumber, sqlString, sqlStringList } from '../../src/core/clickhouse/sqlLiteral';

it('sqlString escapes quotes, backslashes and control characters and nothing else', () => {
  expect(sqlString("O'Brien \\ x")).toBe("'O\\'Brien \\\\ x'");
  expect(sqlString('a\u0000b\nc\x7f')).toBe("'a\\x00b\\x0Ac\\x7F'");
  expect(sqlString('日本😀')).toBe("'日本😀'");
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (value) => {
      const literal = sqlString(value);
      // Inside the quotes, every quote is escaped: the literal cannot end early.
      const inside = literal.slice(1, -1).replace(/\\./gs, '');
      expect(inside.includes("'")).toBe(false);
      expect(inside.includes('\\')).toBe(false);
    }),
    { numRuns: 2000 },
  );
});

it('sqlNumber, sqlIdentifier and sqlStringList refuse what they cannot write safely', () => {
  expect(sqlNumber(42)).toBe('42');
  expect(sqlNumber(-1.5)).toBe('-1.5');
  expect(() => sqlNumber(Infinity)).toThrow();
  expect(() => sqlNumber(NaN)).toThrow();
  expect(() => sqlNumber(2 ** 60)).toThrow();
  expect(sqlIdentifier('audience_desk')).toBe('`audience_desk`');
  for (const bad of ['a`b', 'a b', '1abc', '', 'a.b', 'x;DROP', 'é']) {
    expect(isPlainIdentifier(bad)).toBe(false);
    expect(() => sqlIdentifier(bad)).toThrow();
  }
  expect(() => sqlStringList([])).toThrow();
  expect(sqlStringList(['a', "b'"])).toBe("('a','b\\'')");
});
