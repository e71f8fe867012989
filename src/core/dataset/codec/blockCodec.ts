// How a dataset file stores records: blocks compressed with zstd (node:zlib's, so no native package
// to rebuild for Electron; one context kept across frames, zstdContext.ts), each with a CRC-32 that
// is checked before anything is decoded. A checksum covers what identifies the piece too (the
// block's number), so a piece read under the wrong key is caught like a piece with wrong bytes.
// docs/dataset-format.md describes the layout; docs/engine.md and docs/performance.md the measurements.
import { crc32 } from 'node:zlib';
import { datasetDamaged } from '../format/damage';
import { ZstdCompressor, ZstdDecompressor } from './zstdContext';
import { streamContentSize } from './zstdFrames';

/**
 * Records a block this writer makes: 16 (~21 KB of text). A page whose records sit in different
 * blocks (search and preview of a filtered audience, a page at depth) decompresses a whole block a
 * record, so the block's size is most of a page's cost: 100 records at depth at 10M took median 5.2 ms
 * to read in blocks of 16 against 7.7 in blocks of 32, for a file 3% larger (387 bytes a record
 * against 375; docs/dataset-format.md, "Record blocks"). A reader takes any size a file's meta
 * states (`block_records`): older writers made blocks of 32.
 */
export const RECORDS_PER_BLOCK = 16;
/**
 * zstd level of record blocks: ~376 bytes a record at level 3, ~353 at 9, ~330 at 15, for 3x and 15x
 * or more of the writer's compression time; reading costs the same at every level. A dictionary of
 * the file's records took ~15 bytes more off but made every block ~30% slower to decompress
 * (docs/dataset-format.md, "Size").
 */
export const RECORD_LEVEL = 3;
const NEWLINE = 0x0a;
/** No block of a writer's records comes near this; a header that says more is damage, not a reason to allocate. */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

function blockHeader(block: number, count: number): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32LE(block, 0);
  header.writeUInt32LE(count, 4);
  return header;
}

/** The CRC-32 a record block is stored with: of its number, its record count and its stored bytes. */
export function recordBlockCrc(block: number, count: number, data: Uint8Array): number {
  return crc32(data, crc32(blockHeader(block, count)));
}

/**
 * A block of `count` records as stored: `text`, their JSON texts joined by newlines (which a JSON
 * text never holds raw: JSON escapes it) in UTF-8, compressed.
 */
export function encodeRecordBlock(
  block: number,
  count: number,
  text: Uint8Array,
  compressor: ZstdCompressor,
): { data: Buffer; crc: number } {
  const data = compressor.compress(text);
  return { data, crc: recordBlockCrc(block, count, data) };
}

/** A block's records decompressed: record k is bytes [starts[k], starts[k + 1] - 1) of `bytes`. */
export interface RecordBlock {
  bytes: Buffer;
  starts: Uint32Array;
}

/**
 * Checks and decompresses a stored block of `count` records with the dataset's decompressor, into
 * a buffer of exactly the size the frame's header states: a cached block holds no more memory than
 * its text (a 128 KB chunk each made the 32 MB cache hold ~96 MB). Damage is `dataset_damaged`.
 */
export function decodeRecordBlock(
  path: string,
  id: StoredBlockId,
  crc: number,
  data: Uint8Array,
  decompressor: ZstdDecompressor,
): RecordBlock {
  const size = checkedBlockSize(path, id, crc, data);
  let bytes: Buffer;
  try {
    bytes = decompressor.decompress(data, size);
  } catch {
    throw datasetDamaged(path, `${blockRecords(id)} do not decompress`);
  }
  return recordBlockOf(path, id, bytes);
}

/** Which block: its number, the records it holds, and the records a block of its file holds (meta `block_records`). */
export interface StoredBlockId {
  block: number;
  count: number;
  perBlock: number;
}

const blockRecords = ({ block, count, perBlock }: StoredBlockId): string =>
  `records ${block * perBlock} to ${block * perBlock + count - 1}`;

/** Checks a stored block's checksum and the size its frame states: the size, or `dataset_damaged`. */
export function checkedBlockSize(path: string, id: StoredBlockId, crc: number, data: Uint8Array): number {
  if (recordBlockCrc(id.block, id.count, data) !== crc) throw datasetDamaged(path, `${blockRecords(id)} fail their checksum`);
  const size = streamContentSize(data);
  if (size < 0 || size > MAX_BLOCK_BYTES) throw datasetDamaged(path, `${blockRecords(id)} do not decompress`);
  return size;
}

/**
 * A block's decompressed `bytes` cut into its `count` records: fewer or more is `dataset_damaged`.
 * `into`, when given, is the RecordBlock written (its `starts` at least count + 1 long), so a reader
 * that keeps blocks in reused slots allocates nothing a block for them.
 */
export function recordBlockOf(path: string, id: StoredBlockId, bytes: Buffer, into?: RecordBlock): RecordBlock {
  const { count } = id;
  const starts = into ? into.starts : new Uint32Array(count + 1);
  if (starts.length < count + 1) throw new RangeError('Too few starts for the block.');
  let at = 0;
  for (let k = 1; k < count; k++) {
    at = bytes.indexOf(NEWLINE, at);
    if (at < 0) throw datasetDamaged(path, `${blockRecords(id)} hold fewer records than they should`);
    starts[k] = ++at;
  }
  if (bytes.indexOf(NEWLINE, at) >= 0) throw datasetDamaged(path, `${blockRecords(id)} hold more records than they should`);
  starts[count] = bytes.length + 1;
  if (!into) return { bytes, starts };
  into.bytes = bytes;
  return into;
}

/**
 * The checksum of a file's small tables, kept in meta as `checksum`: every other meta entry but the
 * creation time and every state range, so a damaged record count or state range is caught when the
 * file opens. The creation time is left out so that two writes of the same records are the same
 * file but for it (the generator's and the import's determinism tests compare them).
 */
export function tablesChecksum(
  meta: Readonly<Record<string, string>>,
  states: ReadonlyArray<{ state: string; first: number; count: number }>,
): string {
  const entries = Object.entries(meta)
    .filter(([k]) => k !== 'checksum' && k !== 'created_at')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const ranges = [...states].sort((a, b) => (a.state < b.state ? -1 : 1)).map((s) => [s.state, s.first, s.count]);
  return String(crc32(JSON.stringify([entries, ranges])));
}
