// Vectors kept on disk while they are built, so that memory does not grow with every field's whole
// vector: a ColumnSet writes each vector a chunk of rows at a time here, and the writer reads them
// back one field at a time. A column read back is exactly the one built in memory. docs/import.md
// ("Memory") says what this bounds.
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { settings } from '../config';
import type { BuiltColumn } from './columnSet';
import { VECTOR_TYPES, type Vector, type VectorKind } from './columnVector';

/** One chunk of a column's values in the spill file. */
export interface SpilledChunk {
  at: number;
  kind: VectorKind;
  length: number;
  /** Dictionary codes of a field that has since switched to hashes (see SpilledColumn.hashOf). */
  codes: boolean;
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

  constructor(
    readonly path: string,
    /** Records whose vectors a ColumnSet holds before it writes them here (config.ts: spillRows). */
    readonly chunkRows = settings().spillRows,
  ) {
    this.fd = openSync(path, 'w', 0o600);
  }

  /** Appends `data` (as it is in memory) and says where it went. */
  write(data: Vector, kind: VectorKind, codes: boolean): SpilledChunk {
    if (this.fd === undefined) throw new Error('The vector spill is closed.');
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, this.size + done);
    const chunk = { at: this.size, kind, length: data.length, codes };
    this.size += bytes.length;
    return chunk;
  }

  /** Closes the file for writing (its columns stay readable by path). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
  }
}

/** A spilled column read back whole. */
export function loadSpilledColumn(column: SpilledColumn): BuiltColumn {
  const { path, chunks, hashOf, length, ...rest } = column;
  const Out = VECTOR_TYPES[column.kind];
  const data = new Out(length);
  const fd = openSync(path, 'r');
  try {
    let at = 0;
    for (const chunk of chunks) {
      const Chunk = VECTOR_TYPES[chunk.kind];
      const bytes = chunk.length * Chunk.BYTES_PER_ELEMENT;
      const toHashes = chunk.codes && column.encoding === 'hash';
      // Straight into place when nothing changes; else through an aligned scratch array.
      const target = Chunk === Out && !toHashes ? new Uint8Array(data.buffer, at * Out.BYTES_PER_ELEMENT, bytes) : new Uint8Array(bytes);
      for (let done = 0; done < bytes;) {
        const n = readSync(fd, target, done, bytes - done, chunk.at + done);
        if (n === 0) throw new Error(`The vector spill ${path} ends early.`);
        done += n;
      }
      if (target.buffer !== data.buffer) {
        const values = new Chunk(target.buffer, 0, chunk.length);
        if (toHashes) for (let i = 0; i < values.length; i++) data[at + i] = hashOf![values[i]!]!;
        else data.set(values, at);
      }
      at += chunk.length;
    }
    if (at !== length) throw new Error(`The vector spill ${path} holds ${at} values of ${length}.`);
  } finally {
    closeSync(fd);
  }
  return { ...rest, data };
}

/** Spilled columns read back one at a time, as a writer takes them (one whole vector in memory). */
export function* loadSpilledColumns(columns: readonly SpilledColumn[]): Generator<BuiltColumn> {
  for (const column of columns) yield loadSpilledColumn(column);
}
