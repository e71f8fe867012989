// How a dataset file stores a field's vector: a header row (its field, encoding, kind, length and
// dictionary, with a CRC-32) and the values in chunks of `vector_chunk` positions (meta), each a
// zstd frame with a CRC-32 of its own. A filter reads only the chunks of the state it scans, so the
// first use of a field costs that state's share of the file, not the whole file's
// (docs/dataset-format.md, "Vectors").
import { crc32 } from 'node:zlib';
import { VECTOR_TYPES, type Vector, type VectorKind } from './columnVector';
import { datasetDamaged } from '../format/damage';
import { ZstdCompressor, ZstdDecompressor } from './zstdContext';
import { isPacked, packedOrPlain, unpackChunk } from './packedChunks';

/**
 * Positions a chunk holds, as the writer's default: 64 KB of a one-byte vector, so California at
 * 10M records (~1.2M people) is 19 chunks and a small state one or two, for frames ~1% larger than
 * whole vectors (docs/dataset-format.md, "Size"). Tests write smaller chunks to have several.
 */
export const VECTOR_CHUNK = 65_536;
/** The most a file may say; more is not a layout this version reads. */
const MAX_VECTOR_CHUNK = 1 << 24;
// zstd's fastest level. On the 2M bench file's chunks (390 vectors, 28 MB of values) level 1 wrote
// 1% more bytes than level 9 (~1.4 bytes a record) in a sixth of the time (6 against 38 ns a byte):
// at level 9 compressing the vectors was ~12 µs a record on the writer's thread, most of what
// format 5 had added to generating and importing. Levels 3 and 5 were both larger and slower than 1.
const VECTOR_LEVEL = 1;

/** One kept context compresses the chunks every writer of the thread writes, one frame each, without checksums (chunks have CRCs). */
const chunkCompressor = new ZstdCompressor(VECTOR_LEVEL);
/** One kept context decompresses the chunks of every dataset of the thread (one at a time). */
const chunkDecompressor = new ZstdDecompressor();

export interface VectorHeader {
  name: string;
  encoding: 'value' | 'dict' | 'hash' | 'micro';
  kind: VectorKind;
  length: number;
  /** The stored JSON text of the dictionary, or null. */
  dict: string | null;
}

/** The chunks of a file's vectors, all of `size` positions (the last of a vector fewer). */
export class ChunkLayout {
  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 1 || size > MAX_VECTOR_CHUNK)
      throw new Error(`A vector chunk of ${size} positions is not a layout.`);
  }

  /** The layout meta `vector_chunk` states, or null when it states none this version reads. */
  static fromMeta(value: string | undefined): ChunkLayout | null {
    const size = Number(value);
    return value !== undefined && /^\d+$/.test(value) && size >= 1 && size <= MAX_VECTOR_CHUNK ? new ChunkLayout(size) : null;
  }

  /** The number of chunks of a vector of `length` values. */
  count(length: number): number {
    return Math.ceil(length / this.size);
  }

  /** The chunks [from, to) that hold positions [first, first + count). */
  covering(first: number, count: number): { from: number; to: number } {
    if (count <= 0) return { from: 0, to: 0 };
    return { from: Math.floor(first / this.size), to: Math.floor((first + count - 1) / this.size) + 1 };
  }

  /** The CRC-32 of a header row: of the JSON text [name, encoding, kind, length, dict, chunk size]. */
  headerCrc(h: VectorHeader): number {
    return crc32(Buffer.from(JSON.stringify([h.name, h.encoding, h.kind, h.length, h.dict, this.size]), 'utf8'));
  }

  /**
   * Chunk `chunk` of a field's vector as stored, with its CRC-32: its values compressed, or, for a
   * one-byte vector whose values in the chunk fit 4 bits, packed (packedChunks.ts).
   */
  encode(name: string, chunk: number, vector: Vector): { data: Uint8Array; crc: number } {
    return this.encodeFieldValues(name, chunk, vector.subarray(chunk * this.size, (chunk + 1) * this.size));
  }

  /** encode() of chunk `chunk`'s own values. */
  encodeFieldValues(name: string, chunk: number, values: Vector): { data: Uint8Array; crc: number } {
    if (!(values instanceof Uint8Array)) return this.encodeValues(name, chunk, values);
    const data = packedOrPlain(values, chunkCompressor);
    return { data, crc: this.crcOf(name, chunk, values.length, data) };
  }

  /** encode() of chunk `chunk`'s own values (`values`: all of them, none of the rest of the vector). */
  encodeValues(name: string, chunk: number, values: Vector): { data: Buffer; crc: number } {
    const data = chunkCompressor.compress(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    return { data, crc: this.crcOf(name, chunk, values.length, data) };
  }

  /** The CRC-32 stored with chunk `chunk` of `values` values of the vector `name`: of the JSON text [name, chunk, values], then its stored bytes. */
  crcOf(name: string, chunk: number, values: number, data: Uint8Array): number {
    return crc32(data, crc32(Buffer.from(JSON.stringify([name, chunk, values]), 'utf8')));
  }

  /** The number of values chunk `chunk` of a vector of `length` values holds (0 past its end). */
  values(chunk: number, length: number): number {
    return Math.max(0, Math.min(this.size, length - chunk * this.size));
  }

  /** The bytes of chunk `chunk`'s values inside the whole vector `target`: where decode() writes them. */
  place(target: Vector, chunk: number): Uint8Array {
    const width = target.BYTES_PER_ELEMENT;
    return new Uint8Array(target.buffer, target.byteOffset + chunk * this.size * width, this.values(chunk, target.length) * width);
  }

  /**
   * Checks a stored chunk and decompresses it into `out`, which must be exactly its values' bytes
   * (little-endian, of the header's kind): place() of the whole vector, or a scratch for a check.
   * Damage (a checksum, a frame that does not decompress or has the wrong size) is `dataset_damaged`.
   */
  decode(path: string, header: VectorHeader, chunk: number, stored: { crc: number; data: Uint8Array }, out: Uint8Array): void {
    const size = this.checked(path, header, chunk, stored);
    if (out.byteLength !== size) throw new Error(`No room of the right size for chunk ${chunk} of the vector of ${header.name}.`);
    try {
      inflateChunk(stored.data, out, chunkDecompressor);
    } catch {
      throw datasetDamaged(path, `chunk ${chunk} of the vector of ${header.name} does not decompress`);
    }
  }

  /** decode()'s checks before decompressing (the chunk's place and its checksum): the bytes of its values. */
  checked(path: string, header: VectorHeader, chunk: number, stored: { crc: number; data: Uint8Array }): number {
    const values = this.values(chunk, header.length);
    const where = `chunk ${chunk} of the vector of ${header.name}`;
    if (values === 0) throw datasetDamaged(path, `${where} lies past the vector's end`);
    if (this.crcOf(header.name, chunk, values, stored.data) !== stored.crc) throw datasetDamaged(path, `${where} fails its checksum`);
    if (header.kind !== 'u8' && isPacked(stored.data)) throw datasetDamaged(path, `${where} is packed, but its vector is not of bytes`);
    return values * VECTOR_TYPES[header.kind].BYTES_PER_ELEMENT;
  }
}

/**
 * A checked chunk's values into `out` (exactly their bytes): unpacked when the chunk is packed,
 * decompressed otherwise. Throws when the bytes do not make its values.
 */
export function inflateChunk(data: Uint8Array, out: Uint8Array, decompressor: ZstdDecompressor): void {
  if (isPacked(data)) unpackChunk(data, out, decompressor);
  else decompressor.decompressInto(data, out);
}
