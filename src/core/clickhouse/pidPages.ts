// Pages and exports of the ClickHouse engine, in PID order, never walking an OFFSET from the start:
// an audience's PID at every BOOKMARK_STEP-th match is found once (one sorted array on the server,
// cached), and a page at any depth starts at the bookmark before it (`PID >= bookmark`, a range
// read) with an offset below BOOKMARK_STEP. A list of PIDs (a page of a controlled list, a search's
// 100 records) is read by primary key (`STATE = … AND PID IN (…)`). An export streams
// bookmark-bounded chunks of whole records, so memory stays flat.
import { AppError } from '../../shared/errors';
import type { PreviewRecord } from '../../shared/contract';
import { audienceKey } from '../../shared/audienceRequest';
import type { Audience, RecordStream } from '../audience/contract/engine';
import { audienceWhere } from './audienceSql';
import { STORED_COLUMNS_SQL } from './schema';
import { sqlIdentifier, sqlString, sqlStringList } from './sqlLiteral';
import type { Cached, TableReads } from './tableReads';
import { tsvUnescape } from './tsv';
import { recordJson } from './values';

/** Matches between two bookmarks: a deep page skips fewer than this many rows after a range read. */
export const BOOKMARK_STEP = 10_000;
/** Records a chunk of an export reads (one range of PIDs between two bookmarks). */
export const EXPORT_CHUNK = 5_000;
/** PIDs one `PID IN (…)` read names. */
const IN_LIST_MAX = 2_000;

interface BookmarkEntry extends Cached {
  total: number;
  marks: string[];
}

export const PREVIEW_SQL = ['PID', 'FNAME', 'LNAME', 'CITY', 'STATE'].map(sqlIdentifier).join(', ');

export function previewOf(row: string[]): PreviewRecord {
  return {
    pid: tsvUnescape(row[0]!),
    fname: tsvUnescape(row[1]!),
    lname: tsvUnescape(row[2]!),
    city: tsvUnescape(row[3]!),
    state: tsvUnescape(row[4]!),
  };
}

/** The elements of a ClickHouse array text of PIDs. */
function parsePidArray(text: string): string[] {
  return [...text.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => tsvUnescape(m[1]!.replace(/\\'/g, "'")));
}

/** The PID of every `step`-th match (0, step, 2·step, …) of the state and filters, and their count. */
async function bookmarks(reads: TableReads, audience: Audience, step: number): Promise<BookmarkEntry> {
  const key = `marks:${step}:${audienceKey(audience)}`;
  const hit = reads.cached<BookmarkEntry>(key);
  if (hit) return hit;
  // One sorted array of the matches' PIDs on the server, of which only every step-th comes back.
  const [[marks, total]] = (await reads.rows(
    `SELECT arrayFilter((p, i) -> (i - 1) % ${step} = 0, s, arrayEnumerate(s)), length(s) ` +
      `FROM (SELECT arraySort(groupArray(PID)) AS s FROM ${reads.table} WHERE ${audienceWhere(audience)})`,
  )) as [[string, string]];
  const entry: BookmarkEntry = { marks: parsePidArray(marks), total: Number(total), bytes: 64 + (Number(total) / step) * 48 };
  reads.remember(key, entry);
  return entry;
}

/**
 * SQL for the matches skip .. skip+limit-1 of the state and filters, in PID order, selecting
 * `columns`: from the start for a shallow page, else from the bookmark before it; null past the end.
 */
export async function pageSql(
  reads: TableReads,
  audience: Audience,
  columns: string,
  skip: number,
  limit: number,
  step: number,
): Promise<string | null> {
  let where = audienceWhere(audience);
  let offset = skip;
  if (skip >= step) {
    const { marks } = await bookmarks(reads, audience, step);
    const index = Math.floor(skip / step);
    if (index >= marks.length) return null;
    where += ` AND PID >= ${sqlString(marks[index]!)}`;
    offset = skip - index * step;
  }
  return `SELECT ${columns} FROM ${reads.table} WHERE ${where} ORDER BY PID LIMIT ${offset}, ${limit}`;
}

/** Some columns of the records with these PIDs (ascending) in a state, in PID order. */
export async function byPid(reads: TableReads, state: string, pids: readonly string[], columns: string): Promise<string[][]> {
  const out: string[][] = [];
  for (let from = 0; from < pids.length; from += IN_LIST_MAX) {
    const part = pids.slice(from, from + IN_LIST_MAX);
    const rows = await reads.rows(
      `SELECT ${columns} FROM ${reads.table} WHERE STATE = ${sqlString(state)} AND PID IN ${sqlStringList(part)} ORDER BY PID`,
      true,
    );
    if (rows.length !== part.length) throw new AppError('unavailable', 'The ClickHouse dataset changed while a page was read; try again.');
    out.push(...rows);
  }
  return out;
}

/** The whole records of a list of PIDs (a controlled list) in a state, read by primary key a batch at a time. */
export function pidListRecords(reads: TableReads, state: string, pids: readonly string[]): RecordStream {
  return {
    total: pids.length,
    async *batches(batchSize: number): AsyncIterable<string[]> {
      const size = Math.min(batchSize, IN_LIST_MAX);
      for (let from = 0; from < pids.length; from += size)
        yield (await byPid(reads, state, pids.slice(from, from + size), STORED_COLUMNS_SQL)).map(recordJson);
    },
  };
}

/** The whole records of the state and filters, a range of PIDs between two bookmarks `chunk` apart at a time. */
export async function filteredRecords(reads: TableReads, audience: Audience, chunk: number): Promise<RecordStream> {
  const { marks, total } = await bookmarks(reads, audience, chunk);
  const where = audienceWhere(audience);
  return {
    total,
    async *batches(batchSize: number): AsyncIterable<string[]> {
      // Each chunk is the range of PIDs between two bookmarks: a range read of at most `chunk` records.
      for (let i = 0; i < marks.length; i++) {
        const upper = i + 1 < marks.length ? ` AND PID < ${sqlString(marks[i + 1]!)}` : '';
        const rows = await reads.rows(
          `SELECT ${STORED_COLUMNS_SQL} FROM ${reads.table} WHERE ${where} AND PID >= ${sqlString(marks[i]!)}${upper} ORDER BY PID`,
        );
        for (let from = 0; from < rows.length; from += batchSize) yield rows.slice(from, from + batchSize).map(recordJson);
      }
    },
  };
}
