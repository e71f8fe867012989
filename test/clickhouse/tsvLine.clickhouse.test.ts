// A real ClickHouse stores exactly what each TabSeparated line of a load says (tsvLine.ts), read back
// as the engine reads records. The lines' own round trip without a server: tsvLine.test.ts.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { createTableSql, STORED_COLUMNS_SQL } from '../../src/core/clickhouse/schema';
import { detectDialect } from '../../src/core/clickhouse/serverDialect';
import { sqlIdentifier } from '../../src/core/clickhouse/sqlLiteral';
import { storedRecordToClickHouseTsv } from '../../src/core/clickhouse/tsvLine';
import { recordValues } from '../../src/core/clickhouse/values';
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
