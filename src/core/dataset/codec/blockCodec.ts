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
 * Records a block holds: 32 records (~42 KB of text), a quarter of the work of blocks of 128 for a
 * page whose records sit in different blocks (search and preview of a filtered audience), for
 * blocks ~7% larger (docs/dataset-format.md, "Size").
 */
export const RECORDS_PER_BLOCK = 32;
/**
 * zstd level of record blocks: ~376 bytes a record at level 3, ~353 at 9, ~330 at 15, for 3x and 15x
 * or more of the writer's compression time; reading costs the same at every level. A dictionary of
 * the file's records took ~15 bytes more off but made every block ~30% slower to decompress
 * (docs/dataset-format.md, "Size").
 */
export const RECORD_LEVEL = 3;
const NEWLINE = 0x0a;
/** No block of 32 records comes near this; a header that says more is damage, not a reason to allocate. */
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
  block: number,
  count: number,
  crc: number,
  data: Uint8Array,
  decompressor: ZstdDecompressor,
): RecordBlock {
  const size = checkedBlockSize(path, block, count, crc, data);
  let bytes: Buffer;
  try {
    bytes = decompressor.decompress(data, size);
  } catch {
    throw datasetDamaged(path, `${blockRecords(block, count)} do not decompress`);
  }
  return recordBlockOf(path, block, count, bytes);
}

const blockRecords = (block: number, count: number): string =>
  `records ${block * RECORDS_PER_BLOCK} to ${block * RECORDS_PER_BLOCK + count - 1}`;

/** Checks a stored block's checksum and the size its frame states: the size, or `dataset_damaged`. */
export function checkedBlockSize(path: string, block: number, count: number, crc: number, data: Uint8Array): number {
  if (recordBlockCrc(block, count, data) !== crc) throw datasetDamaged(path, `${blockRecords(block, count)} fail their checksum`);
  const size = streamContentSize(data);
  if (size < 0 || size > MAX_BLOCK_BYTES) throw datasetDamaged(path, `${blockRecords(block, count)} do not decompress`);
  return size;
}

/** A block's decompressed `bytes` cut into its `count` records: fewer or more is `dataset_damaged`. */
export function recordBlockOf(path: string, block: number, count: number, bytes: Buffer): RecordBlock {
  const starts = new Uint32Array(count + 1);
  let at = 0;
  for (let k = 1; k < count; k++) {
    at = bytes.indexOf(NEWLINE, at);
    if (at < 0) throw datasetDamaged(path, `${blockRecords(block, count)} hold fewer records than they should`);
    starts[k] = ++at;
  }
  if (bytes.indexOf(NEWLINE, at) >= 0) throw datasetDamaged(path, `${blockRecords(block, count)} hold more records than they should`);
  starts[count] = bytes.length + 1;
  return { bytes, starts };
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
