// Pages and exports of the ClickHouse engine, in PID order. The table is ordered by (STATE, PID_RANK)
// (schema.ts), so a page is a short range of the primary key, found without walking an OFFSET of rows:
// - a state without filters: its matches at skip S are the ranks S, S+1, …, read as one key range;
// - with filters: the page's ranks (only the matches' ranks are read and sorted on the server), then the
//   page's columns over the key range those ranks span;
// - on a single node, either is one query with the audience's count (pageWithCount): the ranks a subquery
//   whose set the server uses on the key; on a cluster, the count, the ranks and the rows are each a query;
// - a list of ranks (a page of a controlled list) likewise, by key.
// A search reads one column (RECORD, each record's stored text) for its 100 records instead of 392.
// An export streams ranges between bookmarks (the rank of every EXPORT_CHUNK-th match, found once),
// so memory stays flat.
import { AppError } from '../../shared/errors';
import type { PreviewRecord } from '../../shared/contract';
import { audienceKey } from '../../shared/audienceRequest';
import type { Audience, RecordStream } from '../audience/contract/engine';
import { audienceWhere } from './audienceSql';
import { RANK_COLUMN, RECORD_COLUMN } from './schema';
import { sqlIdentifier, sqlNumber } from './sqlLiteral';
import type { SqlValues } from './sqlValues';
import type { Cached, TableReads } from './tableReads';
import { tsvUnescape } from './tsv';

/** Records a chunk of an export reads (one range of ranks between two bookmarks). */
export const EXPORT_CHUNK = 5_000;
/** Ranks one read names. */
const IN_LIST_MAX = 2_000;
/**
 * Up to this many rows of a filtered audience's start, a page of narrow columns (a preview's five) is
 * one query that sorts the matches' rows themselves; deeper, or for whole records, its ranks come first.
 */
const ONE_QUERY_DEPTH = 10_000;

const RANK = sqlIdentifier(RANK_COLUMN);
/** The column of each record's stored text. */
export const RECORD_SQL = sqlIdentifier(RECORD_COLUMN);
export const PREVIEW_SQL = ['PID', 'FNAME', 'LNAME', 'CITY', 'STATE'].map(sqlIdentifier).join(', ');

interface BookmarkEntry extends Cached {
  total: number;
  marks: number[];
}

export function previewOf(row: string[]): PreviewRecord {
  return {
    pid: tsvUnescape(row[0]!),
    fname: tsvUnescape(row[1]!),
    lname: tsvUnescape(row[2]!),
    city: tsvUnescape(row[3]!),
    state: tsvUnescape(row[4]!),
  };
}

/** A RECORD field of an answer as the stored text's UTF-8 bytes: what the embedded engine answers with. */
export function recordBytes(row: string[]): Buffer {
  return Buffer.from(tsvUnescape(row[0]!), 'utf8');
}

/** The rank of every `step`-th match (0, step, 2·step, …) of the state and filters, and their count. */
async function bookmarks(reads: TableReads, audience: Audience, step: number): Promise<BookmarkEntry> {
  const key = `marks:${step}:${audienceKey(audience)}`;
  const hit = reads.cached<BookmarkEntry>(key);
  if (hit) return hit;
  // One sorted array of the matches' ranks on the server, of which only every step-th comes back.
  const [[marks, total]] = (await reads.rows(
    (v) =>
      `SELECT arrayFilter((r, i) -> (i - 1) % ${step} = 0, s, arrayEnumerate(s)), length(s) ` +
      `FROM (SELECT arraySort(groupArray(${RANK})) AS s FROM ${reads.table} WHERE ${audienceWhere(audience, v)})`,
  )) as [[string, string]];
  const list = marks === '[]' ? [] : marks.slice(1, -1).split(',').map(Number);
  const entry: BookmarkEntry = { marks: list, total: Number(total), bytes: 64 + list.length * 8 };
  reads.remember(key, entry);
  return entry;
}

/**
 * Rows of `columns` of the matches skip .. skip+limit-1 of the state and filters, and their total: one
 * query on a single node (pageWithCount); on a cluster, the count (`count`) beside pageRows.
 */
export async function filteredPage(
  reads: TableReads,
  audience: Audience,
  columns: string,
  skip: number,
  limit: number,
  count: () => Promise<number>,
): Promise<{ total: number; rows: string[][] }> {
  if (limit > 0 && reads.localTable())
    // An empty page carries no count: only then is the count asked alone.
    return (await pageWithCount(reads, audience, columns, skip, limit)) ?? { total: await count(), rows: [] };
  const [total, rows] = await Promise.all([
    count(),
    limit > 0 ? pageRows(reads, audience, columns, skip, limit, columns === PREVIEW_SQL) : [],
  ]);
  return { total, rows };
}

/**
 * The matches skip .. skip+limit-1 (limit > 0) of the state and filters, and their count, in one query
 * on a table of this node (reads.localTable()): each row is the count, then `columns`. The page's ranks are
 * a subquery whose set the server uses on the primary key, so only the granules holding the page's rows
 * are read; one request instead of the count's, the ranks' and the rows' (each request to the server
 * costs milliseconds however little it reads). An empty page carries no count: null, and the caller
 * counts. A Distributed table cannot run it (its shards read `people_local`, and a GLOBAL IN set is not
 * used on the key), so a cluster keeps pageRows.
 */
export async function pageWithCount(
  reads: TableReads,
  audience: Audience,
  columns: string,
  skip: number,
  limit: number,
): Promise<{ total: number; rows: string[][] } | null> {
  const rows = await reads.rows((v) => pageWithCountSql(reads.table, audience, columns, skip, limit, v), true);
  if (rows.length === 0) return null;
  const total = Number(rows[0]![0]);
  if (rows.length !== Math.min(limit, total - skip))
    throw new AppError('unavailable', 'The ClickHouse dataset changed while a page was read; try again.');
  return { total, rows: rows.map((row) => row.slice(1)) };
}

/**
 * pageWithCount's SQL: the count as a scalar subquery, and the page's ranks as an IN subquery, or without
 * filters the ranks skip .. skip+limit-1 themselves (every version has both kinds of subquery).
 */
export function pageWithCountSql(table: string, audience: Audience, columns: string, skip: number, limit: number, v: SqlValues): string {
  const count = `(SELECT count() FROM ${table} WHERE ${audienceWhere(audience, v)})`;
  const page =
    audience.filters.length === 0
      ? `${RANK} >= ${sqlNumber(skip)} AND ${RANK} < ${sqlNumber(skip + limit)}`
      : `${RANK} IN (SELECT ${RANK} FROM ${table} WHERE ${audienceWhere(audience, v)} ORDER BY ${RANK} LIMIT ${sqlNumber(skip)}, ${sqlNumber(limit)})`;
  return `SELECT ${count}, ${columns} FROM ${table} WHERE STATE = ${v.string(audience.state)} AND ${page} ORDER BY ${RANK}`;
}

/**
 * Rows of `columns` of the matches skip .. skip+limit-1 of the state and filters, in PID order. Without
 * filters those are the ranks skip .. skip+limit-1 themselves; with filters, their ranks are found first,
 * unless the columns are `narrow` (cheap to read for every match) and the page is near the start.
 */
export async function pageRows(
  reads: TableReads,
  audience: Audience,
  columns: string,
  skip: number,
  limit: number,
  narrow = false,
): Promise<string[][]> {
  if (audience.filters.length > 0 && narrow && skip + limit <= ONE_QUERY_DEPTH)
    return reads.rows(
      (v) =>
        `SELECT ${columns} FROM ${reads.table} WHERE ${audienceWhere(audience, v)} ` +
        `ORDER BY ${RANK} LIMIT ${sqlNumber(skip)}, ${sqlNumber(limit)}`,
      true,
    );
  if (audience.filters.length === 0)
    return reads.rows(
      (v) =>
        `SELECT ${columns} FROM ${reads.table} WHERE STATE = ${v.string(audience.state)} ` +
        `AND ${RANK} >= ${sqlNumber(skip)} AND ${RANK} < ${sqlNumber(skip + limit)} ORDER BY ${RANK}`,
      true,
    );
  const ranks = await reads.rows(
    (v) =>
      `SELECT ${RANK} FROM ${reads.table} WHERE ${audienceWhere(audience, v)} ORDER BY ${RANK} LIMIT ${sqlNumber(skip)}, ${sqlNumber(limit)}`,
    true,
  );
  return byRanks(
    reads,
    audience.state,
    ranks.map((r) => Number(r[0])),
    columns,
  );
}

/** Some columns of the records of a state with these ranks (ascending, each once), in rank order. */
export async function byRanks(reads: TableReads, state: string, ranks: readonly number[], columns: string): Promise<string[][]> {
  const out: string[][] = [];
  for (let from = 0; from < ranks.length; from += IN_LIST_MAX) {
    const part = ranks.slice(from, from + IN_LIST_MAX);
    // The range bounds the key; the set keeps only the ranks asked for within it (none needed without a gap).
    const lo = part[0]!;
    const hi = part[part.length - 1]!;
    const span = `${RANK} >= ${sqlNumber(lo)} AND ${RANK} <= ${sqlNumber(hi)}`;
    const only = hi - lo === part.length - 1 ? '' : ` AND ${RANK} IN (${part.map(sqlNumber).join(',')})`;
    const rows = await reads.rows(
      (v) => `SELECT ${columns} FROM ${reads.table} WHERE STATE = ${v.string(state)} AND ${span}${only} ORDER BY ${RANK}`,
      true,
    );
    if (rows.length !== part.length) throw new AppError('unavailable', 'The ClickHouse dataset changed while a page was read; try again.');
    out.push(...rows);
  }
  return out;
}

/** The whole records of a list of ranks (a controlled list) in a state, read by primary key a batch at a time. */
export function rankListRecords(reads: TableReads, state: string, ranks: readonly number[]): RecordStream {
  return {
    total: ranks.length,
    async *batches(batchSize: number): AsyncIterable<string[]> {
      const size = Math.min(batchSize, IN_LIST_MAX);
      for (let from = 0; from < ranks.length; from += size)
        yield (await byRanks(reads, state, ranks.slice(from, from + size), RECORD_SQL)).map((r) => tsvUnescape(r[0]!));
    },
  };
}

/** The whole records of the state and filters, a range of ranks between two bookmarks `chunk` apart at a time. */
export async function filteredRecords(reads: TableReads, audience: Audience, chunk: number): Promise<RecordStream> {
  const { marks, total } = await bookmarks(reads, audience, chunk);
  return {
    total,
    async *batches(batchSize: number): AsyncIterable<string[]> {
      // Each chunk is the range of ranks between two bookmarks: a key range of at most `chunk` matches.
      for (let i = 0; i < marks.length; i++) {
        const upper = i + 1 < marks.length ? ` AND ${RANK} < ${sqlNumber(marks[i + 1]!)}` : '';
        // PREWHERE: the stored text is read only where a granule holds a match.
        const rows = await reads.rows(
          (v) =>
            `SELECT ${RECORD_SQL} FROM ${reads.table} PREWHERE ${audienceWhere(audience, v)} ` +
            `WHERE ${RANK} >= ${sqlNumber(marks[i]!)}${upper} ORDER BY ${RANK}`,
        );
        for (let from = 0; from < rows.length; from += batchSize) yield rows.slice(from, from + batchSize).map((r) => tsvUnescape(r[0]!));
      }
    },
  };
}
