// The WHERE clause of an integer filter: bands merged (so a request's number of values never makes
// the query too big for the server), single values as one IN set, many wide ranges as arrays.
import { describe, expect, it } from 'vitest';
import { filterSql, mergedBands } from '../../src/core/clickhouse/audienceSql';
import { fieldIndex } from '../../src/shared/fields';

const age = (bands: Array<[number, number]>) => ({
  field: 'AGE',
  index: fieldIndex('AGE'),
  kind: 'integer' as const,
  bands: bands.map(([lo, hi]) => ({ lo, hi })),
});

describe('integer filters as SQL', () => {
  it('merges bands that overlap or touch, whatever their order, and keeps apart those that do not', () => {
    expect(
      mergedBands([
        { lo: 30, hi: 34 },
        { lo: 25, hi: 29 },
        { lo: 40, hi: 40 },
        { lo: 33, hi: 36 },
        { lo: 65, hi: Infinity },
        { lo: 70, hi: 80 },
      ]),
    ).toEqual([
      { lo: 25, hi: 36 },
      { lo: 40, hi: 40 },
      { lo: 65, hi: Infinity },
    ]);
    expect(
      mergedBands([
        { lo: 5, hi: 5 },
        { lo: 7, hi: 7 },
        { lo: 6, hi: 6 },
      ]),
    ).toEqual([{ lo: 5, hi: 7 }]);
  });

  it('writes a thousand bands of AGE as a few ranges', () => {
    const bands = Array.from({ length: 1000 }, (_, i): [number, number] => [18 + (i % 60), 18 + (i % 60) + (i % 3)]);
    expect(filterSql(age(bands))).toBe('((`AGE` >= 18 AND `AGE` <= 79))');
    expect(
      filterSql(
        age([
          [21, 21],
          [30, 39],
          [50, 50],
          [65, Infinity],
        ]),
      ),
    ).toBe('(`AGE` IN (21,50) OR `AGE` >= 65 OR (`AGE` >= 30 AND `AGE` <= 39))');
  });

  it('lists the values of many narrow ranges as one set, and tests many wide ones against two arrays', () => {
    const narrow = Array.from({ length: 20 }, (_, k): [number, number] => [k * 10, k * 10 + 1]);
    expect(filterSql(age(narrow))).toBe(`(\`AGE\` IN (${narrow.flatMap(([lo]) => [lo, lo + 1]).join(',')}))`);
    const wide = Array.from({ length: 20 }, (_, k): [number, number] => [k * 100_000, k * 100_000 + 50_000]);
    const sql = filterSql(age(wide));
    expect(sql).toMatch(/^\(arrayExists\(\(x, lo, hi\) -> x >= lo AND x <= hi, arrayResize\(\[`AGE`\], 20, `AGE`\), \[0,100000,/);
    expect(sql.length).toBeLessThan(700);
  });
});
