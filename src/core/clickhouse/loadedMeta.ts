// The tables a load leaves in a ClickHouse database and what its meta table says of the dataset: the
// load's identity (a new one means every cached answer is stale), when and from what it was made, and
// which fields are hashed. An earlier table layout, or no load at all, is a clear `unavailable`.
import { AppError } from '../../shared/errors';
import { ClickHouseConnection, clickhouseCode, shownAddress } from './connection';
import { TABLE_LAYOUT } from './schema';
import { sqlIdentifier } from './sqlLiteral';
import { tsvUnescape } from './tsv';

export const DATA_TABLE = 'people';
export const META_TABLE = 'people_meta';
/** ClickHouse's "table doesn't exist": seen for an instant while a load renames tables. */
export const UNKNOWN_TABLE = 60;
/** ClickHouse's "database doesn't exist". */
const UNKNOWN_DATABASE = 81;

export interface LoadedMeta {
  loadId: string;
  createdAt: string | null;
  source: string;
  hashed: Set<string>;
}

/** The meta table of the connection's database, read. */
export async function readLoadedMeta(connection: ClickHouseConnection): Promise<LoadedMeta> {
  const metaTable = `${sqlIdentifier(connection.database)}.${sqlIdentifier(META_TABLE)}`;
  let rows: string[][];
  try {
    rows = await connection.rows(`SELECT key, value FROM ${metaTable}`);
  } catch (error) {
    if (clickhouseCode(error) === UNKNOWN_TABLE || clickhouseCode(error) === UNKNOWN_DATABASE)
      throw Object.assign(
        new AppError(
          'unavailable',
          `No dataset is loaded in database ${connection.database} at ${shownAddress(connection.url)}: run \`cli clickhouse load\` first.`,
        ),
        { fromClickHouse: true },
      );
    throw error;
  }
  const map = new Map(rows.map(([k, v]) => [tsvUnescape(k!), tsvUnescape(v ?? '')]));
  // A table of an earlier layout lacks the rank and stored-text columns every page reads.
  if (map.get('table_layout') !== TABLE_LAYOUT)
    throw Object.assign(
      new AppError(
        'unavailable',
        `The dataset in database ${connection.database} at ${shownAddress(connection.url)} was loaded by an earlier version: run \`cli clickhouse load\` again.`,
      ),
      { fromClickHouse: true },
    );
  return {
    loadId: map.get('load_id') ?? '',
    createdAt: map.get('created_at') || null,
    source: map.get('source') ?? '',
    hashed: new Set(JSON.parse(map.get('hashed_fields') ?? '[]') as string[]),
  };
}
