// The performance tables of docs/performance.md (the README's until issue 33) are made from the results
// JSON under bench/ (bench/readmeTables.ts): they must be exactly what the JSON says, so a figure cannot
// be edited by hand or left behind when a bench is run again.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TABLES_PATH, renderTables, verifyCell, withTables } from '../../bench/readmeTables';

describe('docs/performance.md bench tables', () => {
  it('are the ones the results JSON makes', () => {
    const page = readFileSync(TABLES_PATH, 'utf8');
    expect(withTables(page, renderTables())).toBe(page);
  });

  it('live in docs/performance.md', () => {
    expect(TABLES_PATH.replaceAll('\\', '/')).toMatch(/\/docs\/performance\.md$/);
  });

  it('name the file, day and machine of every figure and say which targets are met', () => {
    const tables = renderTables();
    expect(tables).toMatch(/\| dataset file at 10M, bytes a record \|/);
    expect(tables).toMatch(/Where each figure comes from:/);
    expect(tables).toMatch(/`bench\/results-engine-10000000\.json`: \d{4}-\d{2}-\d{2}, /);
    expect(tables).toMatch(/\| (yes|\*\*no\*\*) \|/);
  });

  it('say what `cli verify` said of each measured file, or that it was not recorded', () => {
    const tables = renderTables();
    expect(tables).toMatch(/\| `cli verify` on the file \|/);
    for (const records of ['1,000,000', '10,000,000', '30,000,000']) {
      const row = tables.split('\n').find((line) => line.startsWith(`| ${records} `));
      if (row) expect(row).toMatch(/\| (not recorded|ok \(\d+ s\): .+|\*\*damaged\*\* \(\d+ s\): .+) \|$/);
    }
    expect(verifyCell(undefined)).toBe('not recorded');
    expect(
      verifyCell({ ok: true, line: 'ok: /data/a.sqlite: 10 records, every record block and vector matches its checksum.', seconds: 41.2 }),
    ).toBe('ok (41 s): ok: /data/a.sqlite: 10 records, every record block and vector matches its checksum.');
    // A damaged file is said so in bold, and its one line cannot break the table.
    expect(verifyCell({ ok: false, line: 'damaged: a|b\nrun it again', seconds: 3 })).toBe(
      '**damaged** (3 s): damaged: a\\|b run it again',
    );
  });

  it('refuse a page without the markers', () => {
    expect(() => withTables('# no tables here\n', 'x')).toThrow(/bench:tables/);
  });
});
