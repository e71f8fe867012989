// The dataset file's tables (format 4; docs/dataset-format.md is the contract). Written once
// (generator or import), then only read: records in (STATE, PID) order, so a state is one range of
// positions. Records are kept as compressed blocks of consecutive positions (blockCodec.ts), each
// with a checksum; every filterable field has a compressed, checksummed vector. Ad-hoc SQL over
// every field as a typed column goes through datasetSql.ts, which decompresses the records into a
// temporary `people` view (SQLite itself cannot read zstd).
// README, "Design for speed", has the measurements behind this.
import { FIELDS } from '../../shared/fields';

export const DATASET_FORMAT_VERSION = '4';
/** The format before records were compressed: still read (datasetV3.ts), never written. */
export const LEGACY_FORMAT_VERSION = '3';

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The `people` view of format 3 (a real table `records` of JSON texts), and of datasetSql.ts's temporary copy. */
export const PEOPLE_VIEW_SQL = (schema: 'main' | 'temp'): string => `
CREATE VIEW ${schema}.people AS SELECT _pos,
  ${FIELDS.map((f, i) => `json_extract(record, '$[${i}]') AS ${quoteIdent(f.name)}`).join(',\n  ')}
FROM records;`;

export const DATASET_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- Block b holds positions [b * block_records, (b + 1) * block_records) (meta block_records): their
-- JSON texts joined by newlines, zstd-compressed. crc: CRC-32 of (b, count) and data.
CREATE TABLE record_blocks (block INTEGER PRIMARY KEY, crc INTEGER NOT NULL, data BLOB NOT NULL);
-- A state's records are positions [first, first + count).
CREATE TABLE states (state TEXT PRIMARY KEY, first INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
-- One typed vector per filterable field over all positions, zstd-compressed. encoding 'value': the
-- integers themselves; 'dict': codes into dict (a JSON array of the strings); 'hash': stringHash()
-- of each string, for fields with too many distinct values for a dictionary. Filters scan these in
-- memory. crc: CRC-32 of (name, encoding, kind, length, dict) and data.
CREATE TABLE columns (name TEXT PRIMARY KEY, encoding TEXT NOT NULL, kind TEXT NOT NULL, length INTEGER NOT NULL,
  dict TEXT, crc INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
`;
