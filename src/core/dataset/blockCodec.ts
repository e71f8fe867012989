// How formats 4 and 5 store records and vectors: compressed with zstd (node:zlib's, so no native
// package to rebuild for Electron; contexts kept across frames, zstdContext.ts) and each with a
// CRC-32 that is checked before anything is decoded. A checksum covers what identifies the piece too
// (the block's number, the vector's field and shape, the dictionary's name), so a piece read under
// the wrong key is caught like a piece with wrong bytes. Format 5 compresses record blocks with a
// dictionary of the dataset's own records, stored once in the file.
// docs/dataset-format.md describes the layout; README "Design for speed" the measurements.
import { constants, crc32, zstdCompressSync } from 'node:zlib';
import { VECTOR_TYPES, type Vector, type VectorKind } from './columnVector';
import { datasetDamaged } from './damage';
import { frameContentSize, ZstdCompressor, ZstdDecompressor } from './zstdContext';

/**
 * Records a block holds: 32 records (~42 KB of text), a quarter of the work of blocks of 128 for a
 * page whose records sit in different blocks (search and preview of a filtered audience), for
 * blocks ~7% larger (docs/dataset-format.md, "Size").
 */
export const RECORDS_PER_BLOCK = 32;
/**
 * zstd level of record blocks. With the dictionary: level 3 ~355 bytes a record at ~5 µs a record of
 * the writer's time, level 9 ~340 at ~40 µs, level 15 ~297 at ~220 µs (a 1M-record file would take
 * minutes more to write); decompression costs the same at every level.
 */
export const RECORD_LEVEL = 3;
/** Bytes of record text the dictionary holds at most (zstd raw-content dictionary; docs/dataset-format.md). */
export const DICTIONARY_BYTES = 112 * 1024;
// Vectors are written once and read whole on a field's first use: a higher level costs the writer
// only, and decompression speed hardly depends on it.
const VECTOR_LEVEL = 9;
const NEWLINE = 0x0a;
/** No block of 32 records comes near this; a header that says more is damage, not a reason to allocate. */
const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

const zstd = (bytes: Uint8Array, level: number): Buffer =>
  zstdCompressSync(bytes, { params: { [constants.ZSTD_c_compressionLevel]: level, [constants.ZSTD_c_checksumFlag]: 0 } });

/** Vectors have no dictionary: one kept context serves every dataset of the thread. */
const vectorDecompressor = new ZstdDecompressor();

/**
 * A zstd raw-content dictionary from the first records a writer sees: records spread evenly over
 * them, joined by newlines like a block, up to DICTIONARY_BYTES and at most a sixteenth of their
 * text (a small dataset gets a small one). Every field's usual shape and common values are in it, so
 * a block of 32 records finds matches it could not find in itself.
 */
export function buildRecordDictionary(texts: readonly string[]): Buffer {
  const total = texts.reduce((n, t) => n + Buffer.byteLength(t) + 1, 0);
  const budget = Math.min(DICTIONARY_BYTES, Math.floor(total / 16));
  if (texts.length === 0 || budget === 0) return Buffer.alloc(0);
  const wanted = Math.max(1, Math.floor(budget / (total / texts.length)));
  const step = Math.max(1, Math.floor(texts.length / wanted));
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; i < texts.length; i += step) {
    const n = Buffer.byteLength(texts[i]!) + 1;
    if (bytes + n > budget) break;
    parts.push(texts[i]!);
    bytes += n;
  }
  return Buffer.from(parts.join('\n'), 'utf8');
}

const DICTIONARY_NAME = Buffer.from('record dictionary', 'utf8');

/** The CRC-32 the record dictionary is stored with: of its name, then its bytes. */
export function recordDictionaryCrc(data: Uint8Array): number {
  // zlib's crc32 of a buffer without memory (an empty BLOB as SQLite returns it) is 0, not the value it continues.
  return data.byteLength === 0 ? crc32(DICTIONARY_NAME) : crc32(data, crc32(DICTIONARY_NAME));
}

/** Checks a stored record dictionary; damage is `dataset_damaged`. */
export function checkRecordDictionary(path: string, row: { crc: unknown; data: unknown } | undefined): Buffer {
  if (!row || !(row.data instanceof Uint8Array) || typeof row.crc !== 'number')
    throw datasetDamaged(path, 'the record dictionary is missing');
  if (recordDictionaryCrc(row.data) !== row.crc) throw datasetDamaged(path, 'the record dictionary fails its checksum');
  return Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
}

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
 * A block of records (their JSON texts, which never hold a raw newline: JSON escapes it) as stored:
 * the texts joined by newlines, compressed.
 */
export function encodeRecordBlock(block: number, texts: readonly string[], compressor: ZstdCompressor): { data: Buffer; crc: number } {
  const data = compressor.compress(Buffer.from(texts.join('\n'), 'utf8'));
  return { data, crc: recordBlockCrc(block, texts.length, data) };
}

/** A block's records decompressed: record k is bytes [starts[k], starts[k + 1] - 1) of `bytes`. */
export interface RecordBlock {
  bytes: Buffer;
  starts: Uint32Array;
}

/**
 * Checks and decompresses a stored block of `count` records with the dataset's decompressor (its
 * dictionary, if any): into a buffer of exactly the size the frame's header states, so a cached
 * block holds no more memory than its text. Damage is `dataset_damaged`.
 */
export function decodeRecordBlock(
  path: string,
  block: number,
  count: number,
  crc: number,
  data: Uint8Array,
  decompressor: ZstdDecompressor,
): RecordBlock {
  const where = `records ${block * RECORDS_PER_BLOCK} to ${block * RECORDS_PER_BLOCK + count - 1}`;
  if (recordBlockCrc(block, count, data) !== crc) throw datasetDamaged(path, `${where} fail their checksum`);
  const size = frameContentSize(data);
  if (size < 0 || size > MAX_BLOCK_BYTES) throw datasetDamaged(path, `${where} do not decompress`);
  let bytes: Buffer;
  try {
    bytes = decompressor.decompress(data, size);
  } catch {
    throw datasetDamaged(path, `${where} do not decompress`);
  }
  const starts = new Uint32Array(count + 1);
  let at = 0;
  for (let k = 1; k < count; k++) {
    at = bytes.indexOf(NEWLINE, at);
    if (at < 0) throw datasetDamaged(path, `${where} hold fewer records than they should`);
    starts[k] = ++at;
  }
  if (bytes.indexOf(NEWLINE, at) >= 0) throw datasetDamaged(path, `${where} hold more records than they should`);
  starts[count] = bytes.length + 1;
  return { bytes, starts };
}

/** What identifies a vector, in its checksum: its field, encoding, kind, length and dictionary. */
function vectorHeader(name: string, encoding: string, kind: string, length: number, dict: string | null): Buffer {
  return Buffer.from(JSON.stringify([name, encoding, kind, length, dict]), 'utf8');
}

/** A field's vector as stored: its values' bytes compressed, and the CRC-32 of it all. */
export function encodeVector(
  name: string,
  encoding: string,
  kind: VectorKind,
  dict: string | null,
  values: Vector,
): { data: Buffer; crc: number } {
  const data = zstd(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), VECTOR_LEVEL);
  return { data, crc: vectorCrc(name, encoding, kind, values.length, dict, data) };
}

export function vectorCrc(name: string, encoding: string, kind: string, length: number, dict: string | null, data: Uint8Array): number {
  return crc32(data, crc32(vectorHeader(name, encoding, kind, length, dict)));
}

/** Checks and decompresses a stored vector; damage is `dataset_damaged`. */
export function decodeVector(
  path: string,
  stored: { name: string; encoding: string; kind: string; length: number; dict: string | null; crc: number; data: Uint8Array },
): Vector {
  const { name, encoding, kind, length, dict, crc, data } = stored;
  if (vectorCrc(name, encoding, kind, length, dict, data) !== crc) throw datasetDamaged(path, `the vector of ${name} fails its checksum`);
  const Ctor = VECTOR_TYPES[kind as VectorKind];
  if (!Ctor) throw datasetDamaged(path, `the vector of ${name} has an unknown kind`);
  let bytes: Buffer;
  try {
    bytes = vectorDecompressor.decompress(data, length * Ctor.BYTES_PER_ELEMENT);
  } catch {
    throw datasetDamaged(path, `the vector of ${name} does not decompress`);
  }
  if (bytes.byteLength !== length * Ctor.BYTES_PER_ELEMENT) throw datasetDamaged(path, `the vector of ${name} has the wrong length`);
  if (bytes.byteOffset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, length);
  const aligned = new Uint8Array(bytes.byteLength);
  aligned.set(bytes);
  return new Ctor(aligned.buffer, 0, length);
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
