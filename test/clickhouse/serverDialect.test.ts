// Each server version path's SQL, as text: what the loader sends to 18.16 (Debian 12, tested against a
// real server in the .clickhouse.test.ts files), 21.8, 23.8 and 24.x, on Ordinary and Atomic databases.
import { describe, expect, it } from 'vitest';
import { createMetaSql } from '../../src/core/clickhouse/schema';
import { dialectFor, dropTableSql, switchSql, versionNumbers } from '../../src/core/clickhouse/serverDialect';

const pairs = [
  { current: 'people', fresh: 'people_new_x1', exists: true },
  { current: 'people_meta', fresh: 'people_meta_new_x1', exists: true },
];

describe('the SQL of each server version', () => {
  it('reads versions as the servers write them', () => {
    expect(versionNumbers('18.16.1')).toEqual([18, 16]);
    expect(versionNumbers('24.3.2.23')).toEqual([24, 3]);
    expect(versionNumbers('garbage')).toEqual([0, 0]);
  });

  it('18.16 (Ordinary database): the LowCardinality setting, one RENAME, DROP without SYNC, literals', () => {
    const d = dialectFor('18.16.1', 'Ordinary');
    expect(d.createSettings).toEqual({ allow_experimental_low_cardinality_type: 1 });
    expect(d.queryParameters).toBe(false);
    expect(switchSql(d, 'ad', pairs, 'x1')).toEqual({
      statements: [
        'RENAME TABLE `ad`.`people` TO `ad`.`people_old_x1`, `ad`.`people_new_x1` TO `ad`.`people`, ' +
          '`ad`.`people_meta` TO `ad`.`people_meta_old_x1`, `ad`.`people_meta_new_x1` TO `ad`.`people_meta`',
      ],
      leftovers: ['people_old_x1', 'people_meta_old_x1'],
    });
    expect(dropTableSql(d, 'ad', 'people_old_x1')).toBe('DROP TABLE IF EXISTS `ad`.`people_old_x1`');
  });

  it('the first load anywhere renames, there being nothing to exchange', () => {
    const first = pairs.map((p) => ({ ...p, exists: false }));
    expect(switchSql(dialectFor('24.3.2.23', 'Atomic'), 'ad', first, 'x1')).toEqual({
      statements: ['RENAME TABLE `ad`.`people_new_x1` TO `ad`.`people`, `ad`.`people_meta_new_x1` TO `ad`.`people_meta`'],
      leftovers: [],
    });
  });

  for (const version of ['21.8.15.7', '23.8.9.54', '24.3.2.23', '24.8.4.13'])
    it(`${version} (Atomic database): no obsolete setting, EXCHANGE TABLES, DROP … SYNC, query parameters`, () => {
      const d = dialectFor(version, 'Atomic');
      expect(d.createSettings).toEqual({});
      expect(d.queryParameters).toBe(true);
      expect(switchSql(d, 'ad', pairs, 'x1')).toEqual({
        statements: [
          'EXCHANGE TABLES `ad`.`people` AND `ad`.`people_new_x1`',
          'EXCHANGE TABLES `ad`.`people_meta` AND `ad`.`people_meta_new_x1`',
        ],
        // After an exchange the previous data sits under the new table's name.
        leftovers: ['people_new_x1', 'people_meta_new_x1'],
      });
      expect(dropTableSql(d, 'ad', 'people_new_x1')).toBe('DROP TABLE IF EXISTS `ad`.`people_new_x1` SYNC');
      expect(dropTableSql(d, 'ad', 'people_local', ' ON CLUSTER `c`')).toBe('DROP TABLE IF EXISTS `ad`.`people_local` ON CLUSTER `c` SYNC');
    });

  it('a current server on an Ordinary database (kept from an upgrade) renames, but drops with SYNC', () => {
    const d = dialectFor('21.8.15.7', 'Ordinary');
    expect(switchSql(d, 'ad', pairs, 'x1').statements[0]).toMatch(/^RENAME TABLE /);
    expect(dropTableSql(d, 'ad', 't')).toBe('DROP TABLE IF EXISTS `ad`.`t` SYNC');
  });

  it('19.1 still needs the LowCardinality setting; 19.3 has dropped it; query parameters from 19.11', () => {
    expect(dialectFor('19.1.6', 'Ordinary').createSettings).toEqual({ allow_experimental_low_cardinality_type: 1 });
    expect(dialectFor('19.3.3', 'Ordinary').createSettings).toEqual({});
    expect(dialectFor('19.9.2.4', 'Ordinary').queryParameters).toBe(false);
    expect(dialectFor('19.11.3.11', 'Ordinary').queryParameters).toBe(true);
  });

  it('keeps the metadata in a MergeTree, which every deployment accepts (not TinyLog)', () => {
    expect(createMetaSql('`ad`.`people_meta`')).toBe(
      'CREATE TABLE `ad`.`people_meta` (key String, value String) ENGINE = MergeTree ORDER BY key',
    );
  });
});
