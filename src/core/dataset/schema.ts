// The dataset file's tables, derived from the field catalog. A dataset is written once (by the
// generator or an import), then only read: records sit in (STATE, PID) order so that a state is one
// contiguous range of positions `_pos`, and every per-record structure is addressed by that position.
//
// Each record is stored once, as the JSON array of its values in catalog order: inserting one text
// is ~10x cheaper than binding 392 columns (26 µs a row measured here, which alone would cap
// generation and import near the 30,000 records/s target), and it is what search and export render
// from anyway. Every field is still a typed SQL column of
// array, a view: ad-hoc SQL (the sqlite3 shell, the tests' oracle) reads `people` like a table.
// (Not generated columns: SQLite computes those on every insert, which measured 4,400 rows/s.)
import { FIELDS } from '../../shared/fields';

export const DATASET_FORMAT_VERSION = '3';

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export const DATASET_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE records (_pos INTEGER PRIMARY KEY, record TEXT NOT NULL);
CREATE VIEW people AS SELECT _pos,
  ${FIELDS.map((f, i) => `json_extract(record, '$[${i}]') AS ${quoteIdent(f.name)}`).join(',\n  ')}
FROM records;
-- A state's records are positions [first, first + count).
CREATE TABLE states (state TEXT PRIMARY KEY, first INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
-- One typed vector per filterable field over all positions. encoding 'value': the integers
-- themselves; 'dict': codes into dict (a JSON array of the strings); 'hash': stringHash() of each
-- string, for fields with too many distinct values for a dictionary. Filters scan these in memory.
CREATE TABLE columns (name TEXT PRIMARY KEY, encoding TEXT NOT NULL, kind TEXT NOT NULL, dict TEXT, data BLOB NOT NULL) WITHOUT ROWID;
`;
