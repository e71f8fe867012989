// What the parts of the ClickHouse engine share (clickhouseEngine.ts, pidPages.ts, controlledList.ts):
// the data table, its queries (tried again across the instant a load renames tables) and the cache
// of recent answers, which the engine drops whenever a new load replaced the dataset.
import type { Audience } from '../audience/contract/engine';
import { audienceWhere } from './audienceSql';
import type { ClickHouseConnection } from './connection';
import { RANK_COLUMN } from './schema';
import { sqlIdentifier, sqlString } from './sqlLiteral';
import type { SqlValues } from './sqlValues';

/** An answer kept in the engine's cache, with what it costs. */
export interface Cached {
  bytes: number;
}

/** A query's SQL, or a function that writes it with the query's binder for request values (sqlValues.ts). */
export type Sql = string | ((values: SqlValues) => string);

export interface TableReads {
  /** The data table, qualified by its database. */
  readonly table: string;
  /**
   * The data table is a MergeTree on the node that answers (not a Distributed table over shards), so a
   * query may read it again in a subquery: a filtered page is then one query (pidPages.ts).
   */
  localTable(): boolean;
  /**
   * The rows of a query's TSV answer; `budget`: within one preview's or search's time on the server, and
   * through its cache of uncompressed blocks (a short read of the columns recent counts and pages read).
   */
  rows(sql: Sql, budget?: boolean): Promise<string[][]>;
  cached<T extends Cached>(key: string): T | undefined;
  remember(key: string, entry: Cached): void;
}

/** Every match of the state and filters, in PID order (the order of their ranks), with some columns. */
export function filteredRows(reads: TableReads, audience: Audience, columns: Sql): Promise<string[][]> {
  return reads.rows(
    (v) =>
      `SELECT ${typeof columns === 'string' ? columns : columns(v)} FROM ${reads.table} WHERE ${audienceWhere(audience, v)} ` +
      `ORDER BY ${sqlIdentifier(RANK_COLUMN)}`,
  );
}

/** Whether a table of the connection's database is a MergeTree of the node that answers, not a Distributed table over shards. */
export async function isLocalTable(connection: ClickHouseConnection, name: string): Promise<boolean> {
  const rows = await connection.rows(
    `SELECT engine FROM system.tables WHERE database = ${sqlString(connection.database)} AND name = ${sqlString(name)}`,
  );
  return /MergeTree$/.test(rows[0]?.[0] ?? '');
}
