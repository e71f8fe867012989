// What differs between the ClickHouse versions the loader and the engine meet, decided once from the
// server's own `SELECT version()` and its database's engine, and each difference chosen here and
// nowhere else (docs/clickhouse.md, "Server versions"):
//
// - `allow_experimental_low_cardinality_type` only before 19.3, where LowCardinality was experimental
//   (19.3 removed the setting; a server that no longer knows it refuses the query).
// - The switch: `EXCHANGE TABLES` on an Atomic database (the default since 20.10), which swaps two
//   tables in one step; a plain `RENAME` elsewhere (an Ordinary database, 18.16's only kind).
// - `DROP TABLE … SYNC` from 20.10, so an Atomic database frees the old data at once instead of minutes later.
// - Server-side query parameters from 19.11 (`{name:Type}` with `param_name`); before, the literal
//   encoder (sqlLiteral.ts). sqlValues.ts writes each query's request values one way or the other.
//
// Not a difference: a page and its count in one query on a single node (pidPages.ts, pageWithCount) use a
// scalar subquery and an IN subquery, which 18.16 and every later version run alike; what decides it is
// the table's kind (a MergeTree of the node, or a Distributed table over shards), not the version.
import type { ClickHouseConnection } from './connection';
import { sqlIdentifier, sqlString } from './sqlLiteral';

export interface ServerDialect {
  /** The server's version, as it says it. */
  version: string;
  /** Settings a CREATE of a table with LowCardinality columns needs. */
  createSettings: Record<string, number>;
  /** The switch swaps tables with EXCHANGE TABLES (Atomic database) instead of renaming them. */
  exchangeTables: boolean;
  /** DROP TABLE takes SYNC. */
  dropSync: boolean;
  /** The server takes query parameters ({name:Type}). */
  queryParameters: boolean;
}

/** The major and minor numbers of a version string such as 18.16.1 or 24.3.2.23; 0.0 when unreadable. */
export function versionNumbers(version: string): [number, number] {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}

const atLeast = (version: string, major: number, minor: number): boolean => {
  const [a, b] = versionNumbers(version);
  return a > major || (a === major && b >= minor);
};

/** The dialect of a server version whose database has the given engine (Ordinary, Atomic, Replicated, Shared…). */
export function dialectFor(version: string, databaseEngine: string): ServerDialect {
  return {
    version,
    createSettings: atLeast(version, 19, 3) ? {} : { allow_experimental_low_cardinality_type: 1 },
    // Only these database engines can swap two tables; an Ordinary database on any version cannot.
    exchangeTables: ['Atomic', 'Replicated', 'Shared'].includes(databaseEngine),
    dropSync: atLeast(version, 20, 10),
    queryParameters: atLeast(version, 19, 11),
  };
}

/** Asks the server its version and the database's engine (after the database exists). */
export async function detectDialect(connection: ClickHouseConnection, database: string): Promise<ServerDialect> {
  const [[version, engine]] = (await connection.rows(
    `SELECT version(), (SELECT any(engine) FROM system.databases WHERE name = ${sqlString(database)})`,
  )) as [[string, string]];
  return dialectFor(version, engine);
}

const qualified = (database: string, table: string): string => `${sqlIdentifier(database)}.${sqlIdentifier(table)}`;

/** DROP TABLE IF EXISTS, with SYNC where the server has it. */
export function dropTableSql(dialect: ServerDialect, database: string, table: string, onCluster = ''): string {
  return `DROP TABLE IF EXISTS ${qualified(database, table)}${onCluster}${dialect.dropSync ? ' SYNC' : ''}`;
}

/** One table of a switch: `fresh` takes the name `current`; `exists` says whether `current` is there now. */
export interface SwitchPair {
  current: string;
  fresh: string;
  exists: boolean;
}

/**
 * The statements that give each new table its serving name, and the tables to drop after them (the
 * previous data, under whichever name it ends up). EXCHANGE swaps one pair at a time, each atomic; a
 * RENAME moves every pair in one statement.
 */
export function switchSql(
  dialect: ServerDialect,
  database: string,
  pairs: readonly SwitchPair[],
  suffix: string,
  onCluster = '',
): { statements: string[]; leftovers: string[] } {
  const statements: string[] = [];
  const leftovers: string[] = [];
  const renames: string[] = [];
  for (const { current, fresh, exists } of pairs) {
    if (exists && dialect.exchangeTables) {
      statements.push(`EXCHANGE TABLES ${qualified(database, current)} AND ${qualified(database, fresh)}${onCluster}`);
      leftovers.push(fresh);
      continue;
    }
    if (exists) {
      renames.push(`${qualified(database, current)} TO ${qualified(database, `${current}_old_${suffix}`)}`);
      leftovers.push(`${current}_old_${suffix}`);
    }
    renames.push(`${qualified(database, fresh)} TO ${qualified(database, current)}`);
  }
  if (renames.length) statements.push(`RENAME TABLE ${renames.join(', ')}${onCluster}`);
  return { statements, leftovers };
}
