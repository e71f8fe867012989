// The ClickHouse table of a dataset, derived from the field catalog (src/shared/fields.ts): one
// column per record field in catalog order, typed (integers Int64, coded strings LowCardinality,
// other strings String), and two more for reading whole records: PID_RANK, the record's place in its
// state's PID order (0 = the lowest PID, as the dataset file stores it), and RECORD, the record's
// stored JSON text exactly as the dataset file holds it. Ordered by (STATE, PID_RANK): a state is one
// range of the primary key in PID order, the match at skip S of an unfiltered state is rank S, and a
// page of whole records is one column read over a short range of the key instead of 392 columns.
//
// Coordinates are the exception, measured: ClickHouse 18.16 parses a decimal number in a data
// format (CSV, TSV) with a fast routine that is not correctly rounded (1,255 of 200,000 random
// coordinates came back one unit in the last place off), so an answer would not repeat the
// dataset's value. A coordinate therefore travels as the 64 bits of its double (`*_BITS UInt64`,
// written and read exactly), and an ALIAS Float64 column of the same name gives the number to SQL.
// ALIAS, not MATERIALIZED: computed when read rather than stored, because computing and writing it
// cost 12% of a load's server time (measured), and the engine itself reads the bits.
import { CODEBOOK } from '../../shared/codebook';
import { FIELDS, type FieldDef } from '../../shared/fields';
import { SHARDING_KEY_SQL } from './sharding';
import { sqlIdentifier } from './sqlLiteral';

/** Where one record field lives in the table. */
export interface ColumnPlan {
  field: FieldDef;
  /** The column a record's value is written to and read from. */
  stored: string;
  /** Its ClickHouse type. */
  type: string;
  /** For coordinates: the Float64 column SQL reads (an ALIAS of the stored bits). */
  alias?: { name: string; type: string; expression: string };
}

// String fields whose values are codes from a short list: LowCardinality (dictionary-encoded).
const LOW_CARDINALITY = new Set(['STATE', 'GENDER', ...Object.keys(CODEBOOK)]);

function planOf(field: FieldDef): ColumnPlan {
  if (field.type === 'number') {
    const stored = `${field.name}_BITS`;
    return {
      field,
      stored,
      type: 'UInt64',
      alias: {
        name: field.name,
        type: 'Float64',
        expression: `reinterpretAsFloat64(reinterpretAsString(${sqlIdentifier(stored)}))`,
      },
    };
  }
  if (field.type === 'integer') return { field, stored: field.name, type: 'Int64' };
  return { field, stored: field.name, type: LOW_CARDINALITY.has(field.name) ? 'LowCardinality(String)' : 'String' };
}

export const COLUMN_PLANS: readonly ColumnPlan[] = FIELDS.map(planOf);

/** A field's column as stored (a number's 64 bits, which values.ts reads back exactly), quoted. */
export const storedColumn = (index: number): string => sqlIdentifier(COLUMN_PLANS[index]!.stored);
export const storedColumns = (indexes: readonly number[]): string => indexes.map(storedColumn).join(', ');

/** Every stored field column in catalog order: what a record's TabSeparated line fills first. */
export const STORED_COLUMNS_SQL = COLUMN_PLANS.map((p) => sqlIdentifier(p.stored)).join(', ');

/**
 * The layout of the table, written to the metadata by each load: an engine refuses a table of another
 * layout (an earlier load lacks the columns below) with words that say to load again.
 */
export const TABLE_LAYOUT = 'rank-and-record-1';
/** The record's place in its state's PID order (UInt32): the second part of the primary key. */
export const RANK_COLUMN = 'PID_RANK';
/** The record's stored JSON text, whole: what a search or an export answers with, byte for byte. */
export const RECORD_COLUMN = 'RECORD';

/** The column definitions of a dataset's table (a local MergeTree table or a Distributed one alike). */
export function columnsSql(): string {
  const lines: string[] = [];
  for (const plan of COLUMN_PLANS) {
    lines.push(`${sqlIdentifier(plan.stored)} ${plan.type}`);
    const a = plan.alias;
    if (a) lines.push(`${sqlIdentifier(a.name)} ${a.type} ALIAS ${a.expression}`);
  }
  lines.push(`${sqlIdentifier(RANK_COLUMN)} UInt32`, `${sqlIdentifier(RECORD_COLUMN)} String`);
  return lines.join(',\n  ');
}

/**
 * A MergeTree table of records, ordered by (STATE, PID_RANK). Granules of 1,024 rows, not the default
 * 8,192: a page reads its records' RECORD over the key range its matches span, and each granule it
 * touches is read whole.
 */
export function createTableSql(qualifiedName: string, engine = 'MergeTree', onCluster = ''): string {
  return (
    `CREATE TABLE ${qualifiedName}${onCluster} (\n  ${columnsSql()}\n) ENGINE = ${engine} ` +
    `ORDER BY (STATE, ${RANK_COLUMN}) SETTINGS index_granularity = 1024`
  );
}

/** A Distributed table over a cluster's local tables, rows placed by a hash of PID (sharding.ts). */
export function createDistributedSql(qualifiedName: string, cluster: string, database: string, localTable: string, onCluster = ''): string {
  return (
    `CREATE TABLE ${qualifiedName}${onCluster} (\n  ${columnsSql()}\n) ENGINE = Distributed(${sqlIdentifier(cluster)}, ${sqlIdentifier(database)}, ` +
    `${sqlIdentifier(localTable)}, ${SHARDING_KEY_SQL})`
  );
}

/**
 * The metadata table beside a dataset's table: key/value rows (source, created_at, records, hashed fields).
 * A MergeTree, which every deployment takes (ClickHouse Cloud refuses the Log family); `engine` names a
 * replicated one on a cluster.
 */
export function createMetaSql(qualifiedName: string, engine = 'MergeTree', onCluster = ''): string {
  return `CREATE TABLE ${qualifiedName}${onCluster} (key String, value String) ENGINE = ${engine} ORDER BY key`;
}
