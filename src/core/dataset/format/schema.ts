// The dataset file's tables (format 8; docs/dataset-format.md is the contract). Written once
// (generator or import), then only read: records state by state, so a state is one range of
// positions; within a state in PID order, or in an order of their own (households by ZIP) with each
// position's PID rank stored (pidRanks.ts). Records are kept as compressed blocks of consecutive positions (blockCodec.ts), each
// with a checksum; every filterable field has a compressed, checksummed vector.
// docs/engine.md and docs/performance.md have the measurements behind this.

/**
 * The one format this version reads and writes. Older files (formats 3 to 7, legacy/) are refused
 * with the command that upgrades them once (`cli upgrade --db FILE`): one reader, no branches by age.
 * Its optional parts are named in meta (record_order, pid_order, list_keys with the rules they were
 * written under, hhid_collisions and hhid_splits), never recognised by when a file was written.
 */
export const DATASET_FORMAT_VERSION = '8';

export const DATASET_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- Block b holds positions [b * block_records, (b + 1) * block_records) (meta block_records): their
-- JSON texts joined by newlines, zstd-compressed. crc: CRC-32 of (b, count) and data.
CREATE TABLE record_blocks (block INTEGER PRIMARY KEY, crc INTEGER NOT NULL, data BLOB NOT NULL);
-- A state's records are positions [first, first + count).
CREATE TABLE states (state TEXT PRIMARY KEY, first INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
-- One typed vector per filterable field over all positions. encoding 'value': the integers
-- themselves; 'dict': codes into dict (a JSON array of the strings); 'hash': stringHash() of each
-- string, for fields with too many distinct values for a dictionary. Filters scan these in memory.
-- crc: CRC-32 of (name, encoding, kind, length, dict, chunk size) (vectorChunks.ts).
CREATE TABLE columns (name TEXT PRIMARY KEY, encoding TEXT NOT NULL, kind TEXT NOT NULL, length INTEGER NOT NULL,
  dict TEXT, crc INTEGER NOT NULL) WITHOUT ROWID;
-- Chunk c of a vector: its values at positions [c * vector_chunk, (c + 1) * vector_chunk) (meta
-- vector_chunk), zstd-compressed, or for a one-byte vector whose values there fit 4 bits, packed
-- (packedChunks.ts). crc: CRC-32 of (name, chunk, values) and data.
CREATE TABLE vector_chunks (name TEXT NOT NULL, chunk INTEGER NOT NULL, crc INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (name, chunk));
-- List keys (listKeys.ts), in files whose meta has list_keys: chunk c of a field's keys XOR
-- their bases at positions [c * vector_chunk, ...), u32, zstd-compressed; a chunk not stored is zeros.
CREATE TABLE list_keys (name TEXT NOT NULL, chunk INTEGER NOT NULL, crc INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (name, chunk));
-- A file whose states are not in PID order (meta record_order 'ranked'): chunk c of each
-- position's PID rank within its state (0 = its lowest PID) at positions [c * vector_chunk, ...), u32,
-- zstd-compressed. No rows: every state is in PID order.
CREATE TABLE pid_ranks (chunk INTEGER PRIMARY KEY, crc INTEGER NOT NULL, data BLOB NOT NULL);
-- In a ranked file whose meta has pid_order 'stored': chunk c of each state's PID order, laid out
-- like the ranks: at position first + r, the offset from first of the state's r-th lowest PID. A
-- page reads the part of the order it needs. Files written before it have no such table.
CREATE TABLE pid_order (chunk INTEGER PRIMARY KEY, crc INTEGER NOT NULL, data BLOB NOT NULL);
`;
