// The dataset file's tables, derived from the field catalog. Written once (generator or import), then
// only read: records in (STATE, PID) order, so a state is one range of positions `_pos`. Each record
// is one JSON array text in catalog order (cheaper to insert than 392 bound columns, and what search
// and export render from); the view `people` gives every field as a typed column for ad-hoc SQL.
// README, "Design for speed", has the measurements behind this.
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
