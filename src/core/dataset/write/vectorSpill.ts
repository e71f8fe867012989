// Vectors kept on disk while they are built, so that memory does not grow with every field's whole
// vector: a ColumnSet writes each vector a chunk of rows at a time here, and the writer reads them
// back one field at a time. A column read back is exactly the one built in memory. The values go
// to the file as zstd frames (level 1, with a checksum): a national import's spills would otherwise
// take ~0.4 KB a record, twice over while the vectors are put in order. docs/import.md ("Memory")
// says what this bounds.
import { closeSync, openSync, rmSync } from 'node:fs';
import { settings } from '../../config';
import { replacePrivateFile } from '../../fs/privateFile';
import { readAllAt, writeAllAt } from '../../fs/positionedIo';
import type { BuiltColumn } from '../codec/columnVector';
import { VECTOR_TYPES, type Vector, type VectorKind } from '../codec/columnVector';
import { keptContexts, ZstdCompressor, ZstdDecompressor } from '../codec/zstdContext';

/** A chunk's values are compressed this many bytes a frame (a whole ordered vector is one chunk). */
const FRAME_BYTES = 4 * 2 ** 20;

/** One chunk of a column's values in the spill file. */
export interface SpilledChunk {
  at: number;
  kind: VectorKind;
  length: number;
  /** Dictionary codes of a field that has since switched to hashes (see SpilledColumn.hashOf). */
  codes: boolean;
  /** The stored length of each of its zstd frames, one after the other from `at`; each holds FRAME_BYTES of values but the last. */
  frames: number[];
}

/** A finished column whose values are in a spill file: plain data, so it crosses threads. */
export interface SpilledColumn extends Omit<BuiltColumn, 'data'> {
  path: string;
  /** Values over all chunks. */
  length: number;
  chunks: SpilledChunk[];
  /** The hash of each dictionary code, kept when a field switched to hashes after spilling codes. */
  hashOf: Uint32Array | null;
}

/** A scratch file that chunks of vectors are appended to; removed by remove(), never published. */
export class VectorSpill {
  private fd: number | undefined;
  private size = 0;
  private readonly compressor = new ZstdCompressor(1, undefined, keptContexts, true);

  constructor(
    readonly path: string,
    /** Records whose vectors a ColumnSet holds before it writes them here (config.ts: spillRows). */
    readonly chunkRows = settings().spillRows,
  ) {
    this.fd = replacePrivateFile(path); // the records' values: owner-only from the start
  }

  /** Appends `data` (its bytes as they are in memory, compressed) and says where it went. */
  write(data: Vector, kind: VectorKind, codes: boolean): SpilledChunk {
    const fd = this.fd;
    if (fd === undefined) throw new Error('The vector spill is closed.');
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const chunk = { at: this.size, kind, length: data.length, codes, frames: [] as number[] };
    for (let from = 0; from < bytes.length; from += FRAME_BYTES) {
      const frame = this.compressor.compress(bytes.subarray(from, from + FRAME_BYTES));
      writeAllAt(fd, frame, this.size);
      this.size += frame.length;
      chunk.frames.push(frame.length);
    }
    return chunk;
  }

  /** Closes the file for writing (its columns stay readable by path). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.compressor.close();
  }

  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
  }
}

/** How a column is read back: where its vector goes, and the context that decompresses it. */
export interface LoadOptions {
  /** Its vector (every value is written); a new array by default. */
  vector?: (kind: VectorKind, length: number) => Vector;
  /** Kept by a caller that reads many columns (one context each was ~80 µs and fresh memory); one for this column by default. */
  decompressor?: ZstdDecompressor;
}

/** A spilled column read back whole. */
export function loadSpilledColumn(column: SpilledColumn, options: LoadOptions = {}): BuiltColumn {
  const { path, chunks, hashOf, length, ...rest } = column;
  const Out = VECTOR_TYPES[column.kind];
  const data = options.vector?.(column.kind, length) ?? new Out(length);
  if (!(data instanceof Out) || data.length !== length || data.byteOffset !== 0)
    throw new Error('loadSpilledColumn was given a vector of another shape.');
  const fd = openSync(path, 'r');
  const decompressor = options.decompressor ?? new ZstdDecompressor();
  try {
    let at = 0;
    for (const chunk of chunks) {
      const Chunk = VECTOR_TYPES[chunk.kind];
      const bytes = chunk.length * Chunk.BYTES_PER_ELEMENT;
      const toHashes = chunk.codes && column.encoding === 'hash';
      // Straight into place when nothing changes; else through an aligned scratch array.
      if (Chunk === Out && !toHashes)
        readFrames(fd, path, chunk, new Uint8Array(data.buffer, at * Out.BYTES_PER_ELEMENT, bytes), decompressor);
      else {
        const target = new Uint8Array(bytes);
        readFrames(fd, path, chunk, target, decompressor);
        const values = new Chunk(target.buffer, 0, chunk.length);
        if (toHashes) for (let i = 0; i < values.length; i++) data[at + i] = hashOf![values[i]!]!;
        else data.set(values, at);
      }
      at += chunk.length;
    }
    if (at !== length) throw new Error(`The vector spill ${path} holds ${at} values of ${length}.`);
  } finally {
    closeSync(fd);
    if (decompressor !== options.decompressor) decompressor.close();
  }
  return { ...rest, data };
}

/** A chunk's frames decompressed into `target` (its values' bytes, exactly). */
function readFrames(fd: number, path: string, chunk: SpilledChunk, target: Uint8Array, decompressor: ZstdDecompressor): void {
  let stored = chunk.at;
  let to = 0;
  let frame = Buffer.alloc(0);
  for (const length of chunk.frames) {
    if (frame.length < length) frame = Buffer.allocUnsafe(length);
    if (!readAllAt(fd, frame, length, stored)) throw new Error(`The vector spill ${path} ends early.`);
    const size = Math.min(FRAME_BYTES, target.length - to);
    try {
      decompressor.decompressInto(frame.subarray(0, length), target.subarray(to, to + size));
    } catch {
      throw new Error(`The vector spill ${path} does not read back as it was written (damaged on disk?).`);
    }
    stored += length;
    to += size;
  }
  if (to !== target.length) throw new Error(`The vector spill ${path} holds fewer values than it was given.`);
}

/** Spilled columns read back one at a time, as a writer takes them (one whole vector in memory). */
export function* loadSpilledColumns(columns: readonly SpilledColumn[]): Generator<BuiltColumn> {
  for (const column of columns) yield loadSpilledColumn(column);
}
