// The dataset file's tables, derived from the field catalog. A dataset is written once (by the
// generator or an import), then only read: rows sit in (STATE, PID) order so that a state is one
// contiguous range of positions `_pos`, and every per-row structure is addressed by that position.
import { FIELDS, type FieldType } from '../../shared/fields';

export const DATASET_FORMAT_VERSION = '1';

const SQL_TYPE: Record<FieldType, string> = { string: 'TEXT', integer: 'INTEGER', number: 'REAL' };

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export const RECORD_COLUMNS_SQL = FIELDS.map((f) => quoteIdent(f.name)).join(', ');

export const DATASET_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE people (
  _pos INTEGER PRIMARY KEY,
  ${FIELDS.map((f) => `${quoteIdent(f.name)} ${SQL_TYPE[f.type]} NOT NULL`).join(',\n  ')}
);
-- Each record as its finished CSV line (no line ending): export streams these instead of
-- re-rendering 374 values per row, which is where a JS writer spends its time.
CREATE TABLE export_lines (_pos INTEGER PRIMARY KEY, csv TEXT NOT NULL);
-- A state's records are positions [first, first + count).
CREATE TABLE states (state TEXT PRIMARY KEY, first INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
-- One typed vector per filterable field over all positions: dictionary codes for strings, values
-- for integers. Filters scan these in memory instead of asking SQLite to scan wide rows.
CREATE TABLE columns (name TEXT PRIMARY KEY, kind TEXT NOT NULL, dict TEXT, data BLOB NOT NULL) WITHOUT ROWID;
`;
