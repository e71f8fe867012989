// A reload nobody notices: while a new load is written and switched in, requests to a running engine
// keep answering exactly as before (the embedded engine's answers), none fails and none waits on the
// switch; the switch waits on no merge (the new table's merges stay stopped until it serves, the
// serving table's stop just before the switch), and every INSERT request writes exactly one part.
// The server's own logs (system.part_log, system.query_log, enabled in ./support/localServers.ts) say so.
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { PASSWORD_ENV, USER_ENV } from '../../src/core/clickhouse/credentials';
import { cli } from '../support/cli';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';
import { LOADER } from './support/localServers';
import { expectNoWaitAcross, LONGEST_WAIT_MS, trafficDuring } from './support/traffic';
import { startTwoCores, type TwoCores } from './support/twoCores';

/** The bound: no request made during a load and switch waits longer than this on the switch. */

describeClickHouse('reloading ClickHouse under traffic', () => {
  const clickhouse = useLocalClickHouse('reload_tests');
  let cores: TwoCores;
  let loader: ClickHouseConnection;

  beforeAll(async () => {
    const ch = clickhouse();
    await loadIntoClickHouse({ datasetPath: inject('datasetPath'), target: ch.singleLoad });
    // No cache: every request below reaches the server, during the load and across the switch.
    cores = await startTwoCores(inject('datasetPath'), ch.singleServe, { cacheBytes: 0 });
    loader = new ClickHouseConnection(ch.singleLoad);
  });
  afterAll(async () => {
    await loader?.close();
    await cores?.close();
  });

  /** Rows of the server's logs, once they are written out. */
  async function logRows(sql: string): Promise<string[][]> {
    await loader.command('SYSTEM FLUSH LOGS');
    return loader.rows(sql);
  }

  it('writes one part an INSERT request, each no larger than asked, and merges none before the switch', async () => {
    const recordsPerInsert = 7_000;
    const result = await loadIntoClickHouse({ datasetPath: inject('datasetPath'), target: clickhouse().singleLoad, recordsPerInsert });
    const table = `people_new_${result.loadId}`;
    const parts = await logRows(
      `SELECT toUInt8(event_type), rows FROM system.part_log WHERE database = 'reload_tests' AND table = '${table}' ORDER BY event_time`,
    );
    const [[inserts]] = (await logRows(
      `SELECT count() FROM system.query_log WHERE toUInt8(type) = 2 AND query LIKE 'INSERT INTO %${table}%'`,
    )) as [[string]];
    // Event types by number (1 a new part, 2 a merge): their names differ between versions.
    const newParts = parts.filter(([type]) => type === '1').map(([, rows]) => Number(rows));
    expect(newParts.length).toBe(Number(inserts));
    expect(newParts.reduce((a, b) => a + b, 0)).toBe(inject('testRows'));
    for (const rows of newParts) expect(rows).toBeLessThanOrEqual(recordsPerInsert);
    // 30,000 records in requests of at most 7,000: at least five requests, so the bound was reached.
    expect(newParts.length).toBeGreaterThanOrEqual(Math.ceil(inject('testRows') / recordsPerInsert));
    expect(parts.filter(([type]) => type === '2')).toEqual([]);
  });

  it('answers every request made during a load and its switch, as before and without waiting on it', async () => {
    const bodies = [
      ['/api/audiences/preview', { state: 'CA', filters: [['GENDER', ['F']]], limit: 50, skip: 120 }],
      ['/api/audiences/search', { state: 'TX', filters: [['AGE', ['30-49']]], limit: 20, skip: 7 }],
      ['/api/audiences/preview', { state: 'NY', limit: 100 }],
    ] as const;
    const expected = await Promise.all(bodies.map(async ([path, body]) => (await cores.embedded.post(path, body)).text()));

    // Each asked once before the load, as a serving engine has been asked before (its first read of a column's marks).
    for (const [path, body] of bodies) expect((await cores.clickhouse.post(path, body)).status).toBe(200);

    // The load runs as it does for real: `cli clickhouse load` in its own process (its conversion of
    // records would otherwise share this process's event loop with the engine it is measured beside).
    const ch = clickhouse();
    const { answers, result: loaded } = await trafficDuring(cores.clickhouse.post, bodies, expected, () =>
      cli(['clickhouse', 'load', '--db', inject('datasetPath'), '--url', ch.singleLoad.url, '--database', ch.singleLoad.database], {
        env: { ...process.env, [USER_ENV]: LOADER.username, [PASSWORD_ENV]: LOADER.password },
      }),
    );
    expect(loaded.code, loaded.stderr).toBe(0);
    const load = JSON.parse(loaded.stdout) as { loadId: string };

    // The switch statement, as the server logged it (type 2: finished; times to the second).
    const [[startedAt, finishedAt, switchMs]] = (await logRows(
      `SELECT toUnixTimestamp(query_start_time), toUnixTimestamp(event_time), query_duration_ms FROM system.query_log ` +
        `WHERE toUInt8(type) = 2 AND query LIKE 'RENAME TABLE%people_new_${load.loadId}%'`,
    )) as [[string, string, string]];
    const from = Number(startedAt) * 1000;
    const to = (Number(finishedAt) + 1) * 1000;
    // No merge ran on the new table before it served, and the serving table's merges were stopped before
    // the switch (so neither could hold it).
    const merges = await logRows(
      `SELECT count() FROM system.part_log WHERE toUInt8(event_type) = 2 AND table = 'people_new_${load.loadId}'`,
    );
    expect(merges).toEqual([['0']]);
    const stops = await logRows(
      `SELECT toUnixTimestamp(event_time) FROM system.query_log WHERE toUInt8(type) = 2 ` +
        "AND query = 'SYSTEM STOP MERGES `reload_tests`.`people`' ORDER BY event_time DESC LIMIT 1",
    );
    expect(Number(stops[0]?.[0])).toBeLessThanOrEqual(Number(startedAt));
    expect(Number(stops[0]?.[0])).toBeGreaterThanOrEqual(Number(startedAt) - 60);
    // So the switch waited on nothing (a generous bound on what the server measured; it takes milliseconds).
    expect(Number(switchMs)).toBeLessThan(LONGEST_WAIT_MS);

    expectNoWaitAcross(answers, from, to);
  }, 300_000);
});
