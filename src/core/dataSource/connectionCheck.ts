// The Data source screen's "Test connection": each step a person needs to know about, in order,
// stopping at the first that fails with a sentence saying which (unreachable, user or password
// refused, no such database, nothing loaded yet). Then what is loaded (records and when, from
// people_meta) and whether the user can write: the README says serve with a read-only user, so a
// writing user is answered with a warning. With fallback nodes, every node is pinged, the queries go
// to the nodes that answer first, and the report names the node that answered them. No message names
// the password; addresses are shown as scheme://host:port only (connection.ts).
import type { ClickHouseCheck } from '../../shared/contract';
import { isAppError } from '../../shared/errors';
import { DATA_TABLE, META_TABLE } from '../clickhouse/loadedMeta';
import { checkTarget, ClickHouseConnection, nodeUrls, shownAddress, type ClickHouseTarget } from '../clickhouse/connection';
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

/** Why a server cannot be used when no node of it answers /ping, naming the address and any fallback nodes. */
export function nothingAnswers(target: Pick<ClickHouseTarget, 'url' | 'fallbackUrls'>): string {
  const fallbacks = (target.fallbackUrls ?? []).map(shownAddress);
  const nor = fallbacks.length ? ` (nor at its fallback nodes ${fallbacks.join(', ')})` : '';
  return `Nothing answers at ${shownAddress(target.url)}${nor}: check the address and port, and that the server runs.`;
}

/** A warning for each node that does not /ping while another does: where requests go meanwhile. */
function silentNodeWarnings(nodes: ClickHouseCheck['nodes']): string[] {
  const [entry, ...fallbacks] = nodes;
  const answering = nodes.find((n) => n.reachable)?.address;
  const warnings: string[] = [];
  if (!entry || !answering) return warnings;
  if (!entry.reachable) warnings.push(`${entry.address} does not answer: requests go to its fallback node ${answering} meanwhile.`);
  for (const node of fallbacks)
    if (!node.reachable) warnings.push(`The fallback node ${node.address} does not answer: it cannot stand in while it is down.`);
  return warnings;
}

export async function checkClickHouse(target: ClickHouseTarget): Promise<ClickHouseCheck> {
  const started = performance.now();
  const address = shownAddress(target.url);
  checkTarget(target); // bad input (the address or a fallback node) is thrown before anything is asked
  const report: ClickHouseCheck = {
    address,
    nodes: [],
    answeredBy: null,
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
  const urls = nodeUrls(target);
  const answers = await Promise.all(urls.map((url) => answersPing(url)));
  report.nodes = urls.map((url, i) => ({ address: shownAddress(url), reachable: answers[i]! }));
  report.reachable = answers.includes(true);
  if (!report.reachable) return done(nothingAnswers(target));
  report.warnings.push(...silentNodeWarnings(report.nodes));
  // The nodes that answered /ping are asked first, in order, so a silent entry node does not hold up each query.
  const [first, ...rest] = [...urls.filter((_, i) => answers[i]), ...urls.filter((_, i) => !answers[i])];
  const ordered: ClickHouseTarget = { ...target, url: first!, fallbackUrls: rest };
  const connection = new ClickHouseConnection(ordered, { requestTimeoutMs: CHECK_TIMEOUT_MS, keepAlive: false });
  try {
    try {
      report.version = (await connection.check()).version;
      report.signedIn = true;
      report.answeredBy = shownAddress(connection.url);
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
