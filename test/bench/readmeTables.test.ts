// The README's performance tables are made from the results JSON under bench/ (bench/readmeTables.ts):
// they must be exactly what the JSON says, so a figure cannot be edited by hand or left behind when
// a bench is run again.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_PATH, renderTables, withTables } from '../../bench/readmeTables';

describe('README bench tables', () => {
  it('are the ones the results JSON makes', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(withTables(readme, renderTables())).toBe(readme);
  });

  it('name the file, day and machine of every figure and say which targets are met', () => {
    const tables = renderTables();
    expect(tables).toMatch(/\| dataset file at 10M, bytes a record \|/);
    expect(tables).toMatch(/Where each figure comes from:/);
    expect(tables).toMatch(/`bench\/results-engine-10000000\.json`: \d{4}-\d{2}-\d{2}, /);
    expect(tables).toMatch(/\| (yes|\*\*no\*\*) \|/);
  });

  it('refuse a README without the markers', () => {
    expect(() => withTables('# no tables here\n', 'x')).toThrow(/bench:tables/);
  });
});
