// A field's vector as the dataset file stores it: its header row with its CRC, and its chunks encoded
// (packed or compressed, vectorChunks.ts), each with its CRC. The writer encodes the vectors it is
// given; the import's order worker encodes each vector as soon as it has put it in order, beside the
// writing of the records, and leaves the chunks in a scratch file for the writer to insert as they
// are: the encoding no longer waits for the records to be written, and no vector is compressed into
// a spill and read back only to be encoded (docs/import.md, "Write").
import { closeSync, openSync } from 'node:fs';
import { FIELDS } from '../../../shared/fields';
import { replacePrivateFile } from '../../fs/privateFile';
import { readAllAt, writeAllAt } from '../../fs/positionedIo';
import type { BuiltColumn, VectorKind } from '../codec/columnVector';
import { asMillionths } from '../codec/coordinateVectors';
import type { ChunkLayout } from '../codec/vectorChunks';

export interface EncodedChunk {
  data: Uint8Array;
  crc: number;
}

export interface EncodedColumn {
  field: number;
  encoding: BuiltColumn['encoding'];
  kind: VectorKind;
  length: number;
  /** The dictionary as stored (its JSON text), or null. */
  dict: string | null;
  /** The header row's CRC. */
  crc: number;
  /** The positions a chunk holds (the layout it was encoded for: a writer takes only its own). */
  chunkSize: number;
  /** Its chunks in order; made (or read) one at a time as they are asked for. */
  chunks: Iterable<EncodedChunk>;
}

/** An encoded column whose chunks are in a scratch file: plain data, so it crosses threads. */
export interface SpilledEncodedColumn extends Omit<EncodedColumn, 'chunks'> {
  path: string;
  /** Each chunk's place in the file, stored length and CRC: [at, size, crc, at, size, crc, ...]. */
  chunks: number[];
}

/** A built vector encoded for `layout`: LATITUDE and LONGITUDE as millionths where that is exact. */
export function encodeColumn(given: BuiltColumn, layout: ChunkLayout): EncodedColumn {
  const field = FIELDS[given.field];
  if (!field) throw new Error(`A vector was given for field ${given.field}, which the catalog does not have.`);
  const column = field.type === 'number' ? asMillionths(given) : given;
  const dict = column.dict ? JSON.stringify(column.dict) : null;
  const header = { name: field.name, encoding: column.encoding, kind: column.kind, length: column.data.length, dict };
  return {
    field: column.field,
    encoding: column.encoding,
    kind: column.kind,
    length: column.data.length,
    dict,
    crc: layout.headerCrc(header),
    chunkSize: layout.size,
    chunks: (function* () {
      for (let chunk = 0; chunk < layout.count(column.data.length); chunk++) yield layout.encode(field.name, chunk, column.data);
    })(),
  };
}

/** Writes encoded columns' chunks one after the other to a new owner-only scratch file at `path`; says where each is. */
export function spillEncodedColumns(columns: Iterable<EncodedColumn>, path: string): SpilledEncodedColumn[] {
  const fd = replacePrivateFile(path); // the records' values, encoded: owner-only from the start
  let size = 0;
  try {
    const spilled: SpilledEncodedColumn[] = [];
    for (const { chunks, ...column } of columns) {
      const places: number[] = [];
      for (const { data, crc } of chunks) {
        writeAllAt(fd, data, size);
        places.push(size, data.byteLength, crc);
        size += data.byteLength;
      }
      spilled.push({ ...column, path, chunks: places });
    }
    return spilled;
  } finally {
    closeSync(fd);
  }
}

/** The columns spillEncodedColumns wrote, one at a time, each chunk read when asked for (valid until the next). */
export function* loadEncodedColumns(columns: readonly SpilledEncodedColumn[]): Generator<EncodedColumn> {
  for (const { path, chunks, ...column } of columns) yield { ...column, chunks: readChunks(path, chunks) };
}

function* readChunks(path: string, places: readonly number[]): Generator<EncodedChunk> {
  const fd = openSync(path, 'r');
  try {
    let buffer = Buffer.alloc(0);
    for (let k = 0; k < places.length; k += 3) {
      const [at, size, crc] = [places[k]!, places[k + 1]!, places[k + 2]!];
      if (buffer.byteLength < size) buffer = Buffer.allocUnsafe(Math.max(size, 2 * buffer.byteLength));
      if (!readAllAt(fd, buffer, size, at)) throw new Error('A scratch file of encoded vectors is shorter than what was written to it.');
      yield { data: buffer.subarray(0, size), crc };
    }
  } finally {
    closeSync(fd);
  }
}
