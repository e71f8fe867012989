// The Data source screen's "Test connection": each step a person needs to know about, in order,
// stopping at the first that fails with a sentence saying which (unreachable, user or password
// refused, no such database, nothing loaded yet). Then what is loaded (records and when, from
// people_meta) and whether the user can write: the README says serve with a read-only user, so a
// writing user is answered with a warning. No message names the password; addresses are shown
// as scheme://host:port only (connection.ts).
import type { ClickHouseCheck } from '../../shared/contract';
import { isAppError } from '../../shared/errors';
import { DATA_TABLE, META_TABLE } from '../clickhouse/clickhouseEngine';
import { ClickHouseConnection, shownAddress, type ClickHouseTarget } from '../clickhouse/connection';
import { sqlIdentifier, sqlString } from '../clickhouse/sqlLiteral';
import { tsvUnescape } from '../clickhouse/tsv';

/** A test connection waits this long for each answer: an address that drops packets must not hang the screen. */
export const CHECK_TIMEOUT_MS = 10_000;

export const WRITABLE_WARNING =
  'This user can write to the server (readonly = 0). Serve with a read-only user (README, "Data sources"): ' +
  'the app only reads, and a leaked password should not let anyone change or drop the data.';

function message(e: unknown): string {
  return isAppError(e) ? e.message : 'The server answered something unexpected.';
}

/**
 * Whether anything answers ClickHouse's /ping at the address (no credentials are sent or checked
 * there), which tells "nothing there" from "the password was refused".
 */
export async function answersPing(url: string, timeoutMs = CHECK_TIMEOUT_MS): Promise<boolean> {
  try {
    const res = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

export async function checkClickHouse(target: ClickHouseTarget): Promise<ClickHouseCheck> {
  const started = performance.now();
  const address = shownAddress(target.url);
  const report: ClickHouseCheck = {
    address,
    database: target.database,
    reachable: false,
    version: null,
    signedIn: false,
    databaseFound: false,
    tableFound: false,
    records: null,
    loadedAt: null,
    source: null,
    readOnly: null,
    ms: 0,
    error: null,
    warnings: [],
  };
  const done = (error: string | null): ClickHouseCheck => ({ ...report, error, ms: Math.round(performance.now() - started) });
  // checkTarget's own errors (no http(s), a user:password in the address) are thrown: bad input.
  const connection = new ClickHouseConnection(target, { requestTimeoutMs: CHECK_TIMEOUT_MS, keepAlive: false });
  try {
    report.reachable = await answersPing(target.url);
    if (!report.reachable) return done(`Nothing answers at ${address}: check the address and port, and that the server runs.`);
    try {
      report.version = (await connection.check()).version;
      report.signedIn = true;
    } catch (e) {
      return done(message(e));
    }
    const [[readonly] = ['0']] = await connection.rows("SELECT value FROM system.settings WHERE name = 'readonly'");
    report.readOnly = readonly !== '0';
    if (!report.readOnly) report.warnings.push(WRITABLE_WARNING);
    const [[databases] = ['0']] = await connection.rows(`SELECT count() FROM system.databases WHERE name = ${sqlString(target.database)}`);
    report.databaseFound = databases !== '0';
    if (!report.databaseFound)
      return done(`${address} has no database ${target.database}: load a dataset into it first (\`cli clickhouse load\`).`);
    const tables = (
      await connection.rows(
        `SELECT name FROM system.tables WHERE database = ${sqlString(target.database)} AND name IN (${sqlString(DATA_TABLE)}, ${sqlString(META_TABLE)})`,
      )
    ).map((r) => tsvUnescape(r[0]!));
    report.tableFound = tables.includes(DATA_TABLE) && tables.includes(META_TABLE);
    if (!report.tableFound)
      return done(
        `Database ${target.database} at ${address} holds no loaded dataset (tables ${DATA_TABLE} and ${META_TABLE}): run \`cli clickhouse load\` first.`,
      );
    const meta = new Map(
      (await connection.rows(`SELECT key, value FROM ${sqlIdentifier(target.database)}.${sqlIdentifier(META_TABLE)}`)).map(([k, v]) => [
        tsvUnescape(k!),
        tsvUnescape(v ?? ''),
      ]),
    );
    const records = Number(meta.get('records'));
    report.records = Number.isSafeInteger(records) ? records : null;
    report.loadedAt = meta.get('loaded_at') || null;
    report.source = meta.get('source') || null;
    return done(null);
  } catch (e) {
    return done(message(e));
  } finally {
    await connection.close();
  }
}
