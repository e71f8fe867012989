// A real ClickHouse stores exactly what each TabSeparated line of a load says (tsvLine.ts), read back
// as the engine reads records: the typed fields, the PID rank, and the stored text whole (RECORD). The lines' own round trip without a server: tsvLine.test.ts.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { createTableSql, RANK_COLUMN, RECORD_COLUMN, STORED_COLUMNS_SQL } from '../../src/core/clickhouse/schema';
import { detectDialect } from '../../src/core/clickhouse/serverDialect';
import { sqlIdentifier } from '../../src/core/clickhouse/sqlLiteral';
import { storedRecordToClickHouseTsv } from '../../src/core/clickhouse/tsvLine';
import { tsvUnescape } from '../../src/core/clickhouse/tsv';
import { recordValues } from '../../src/core/clickhouse/values';
import { FIELDS } from '../../src/shared/fields';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';
import { hexId, hostileString, plainString, record } from './support/tsvRecords';

describeClickHouse('TabSeparated lines into a real ClickHouse table', () => {
  const clickhouse = useLocalClickHouse('tsv_tests');

  it('stores exactly what each line says, read back as the engine reads records', async () => {
    const connection = new ClickHouseConnection(clickhouse().singleLoad);
    const table = `${sqlIdentifier('tsv_tests')}.${sqlIdentifier('people_lines')}`;
    try {
      await connection.command('CREATE DATABASE IF NOT EXISTS tsv_tests');
      await connection.command(createTableSql(table), (await detectDialect(connection, 'default')).createSettings);
      const records = fc.sample(record(fc.oneof(hostileString, plainString), hexId), { numRuns: 200, seed: 21 });
      await connection.insertTsv(
        table,
        (async function* () {
          yield records.map((r, i) => storedRecordToClickHouseTsv(JSON.stringify(r), i)).join('');
        })(),
      );
      const rows = await connection.rows(
        `SELECT ${STORED_COLUMNS_SQL}, ${sqlIdentifier(RANK_COLUMN)}, ${sqlIdentifier(RECORD_COLUMN)} FROM ${table} ORDER BY ${sqlIdentifier(RANK_COLUMN)}`,
      );
      const fields = FIELDS.length;
      // Each record's rank came back with it; the table gives them back in rank order.
      expect(rows.map((row) => Number(row[fields]))).toEqual(records.map((_, i) => i));
      expect(rows.map((row) => recordValues(row.slice(0, fields)))).toEqual(records.map((r) => JSON.parse(JSON.stringify(r)) as typeof r));
      expect(rows.map((row) => tsvUnescape(row[fields + 1]!))).toEqual(records.map((r) => JSON.stringify(r)));
    } finally {
      await connection.command(`DROP TABLE IF EXISTS ${table}`);
      await connection.close();
    }
  }, 60_000);
});
