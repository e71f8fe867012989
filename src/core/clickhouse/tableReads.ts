// What the parts of the ClickHouse engine share (clickhouseEngine.ts, pidPages.ts, controlledList.ts):
// the data table, its queries (tried again across the instant a load renames tables) and the cache
// of recent answers, which the engine drops whenever a new load replaced the dataset.
import type { Audience } from '../audience/contract/engine';
import { audienceWhere } from './audienceSql';

/** An answer kept in the engine's cache, with what it costs. */
export interface Cached {
  bytes: number;
}

export interface TableReads {
  /** The data table, qualified by its database. */
  readonly table: string;
  /** The rows of a query's TSV answer; `budget`: within one preview's or search's time on the server. */
  rows(sql: string, budget?: boolean): Promise<string[][]>;
  cached<T extends Cached>(key: string): T | undefined;
  remember(key: string, entry: Cached): void;
}

/** Every match of the state and filters, in PID order, with some columns. */
export function filteredRows(reads: TableReads, audience: Audience, columns: string): Promise<string[][]> {
  return reads.rows(`SELECT ${columns} FROM ${reads.table} WHERE ${audienceWhere(audience)} ORDER BY PID`);
}
