// The vectors of an open dataset file: every field's (LATITUDE's and LONGITUDE's as millionths), read a state's chunks at a time (vectorChunks.ts) and kept within a memory budget
// (keptVectors.ts), or read for one call and not kept (the coordinates for `near`, the vectors list
// keys are rebuilt from). Part of Dataset (dataset.ts), which owns the connection and says what damage it met.
import { AppError } from '../../../shared/errors';
import { FIELDS } from '../../../shared/fields';
import type { Db, Statement } from '../../sqlite';
import { sharedVector, VECTOR_TYPES, type Vector, type VectorKind } from '../codec/columnVector';
import { copyCoordinates } from '../codec/coordinateVectors';
import type { ColumnVector, PositionRange, StateRange } from '../format/datasetTypes';
import { datasetDamaged } from '../format/damage';
import { DictionaryText } from '../codec/dictionaryText';
import { BY_READER, BY_WORKER, inflateJob, readShared, statusOf, type BlockInflater } from './inflateJob';
import { chunkFetch, storedChunk } from './pieceFetch';
import { KeptVectors } from './keptVectors';
import { VectorReserve, type ReserveRange } from './vectorReserve';
import { ChunkLayout, type VectorHeader } from '../codec/vectorChunks';
import { ZstdDecompressor } from '../codec/zstdContext';

/** Chunks a first use needs before they are shared with the scan worker (handing a job over costs ~0.1-0.2 ms). */
const SHARE_FROM = 4;

/** Runs a read of the file; damage becomes `dataset_damaged`, which the dataset remembers. */
/** A field's encoding and dictionary (its values made from `dictionary` when `dict` is read): what columnInfo answers. */
type ColumnInfo = Pick<ColumnVector, 'field' | 'encoding' | 'dict'> & { dictionary: DictionaryText | null };

/**
 * A vector whose `dict` is made from `dictionary` when first read (DictionaryText): a filter asks
 * the dictionary for codes, and only what reads every value makes the values.
 */
function withDictionary<T extends Pick<ColumnVector, 'field' | 'encoding'>>(
  fields: T,
  dictionary: DictionaryText | null,
): T & Pick<ColumnVector, 'dict'> {
  return Object.defineProperty(fields, 'dict', { get: () => dictionary?.values() ?? null, enumerable: true }) as T &
    Pick<ColumnVector, 'dict'>;
}

export type GuardedRead = <T>(what: string, read: () => T) => T;

/** A vector as far as it is loaded: a chunk at a time. */
interface LoadedColumn {
  vector: ColumnVector;
  dictionary: DictionaryText | null;
  header: VectorHeader;
  /** 1 for each chunk in `vector.data`; null when the whole vector is there. */
  loaded: Uint8Array | null;
  /** Memory it holds: its loaded values and its dictionary's text (KeptVectors' budget). */
  bytes: number;
}

/** A `columns` row: the vector's header (its values are chunks, rows of their own). */
interface StoredColumn {
  name: string;
  encoding: ColumnVector['encoding'];
  kind: VectorKind;
  length: number;
  dict: string | null;
  crc: number;
}

export class DatasetVectors {
  private readonly columns: KeptVectors<LoadedColumn>;
  /** Encodings and dictionaries asked for without the values (columnInfo). */
  private readonly infos = new Map<number, ColumnInfo>();
  private readonly columnStmt: Statement;
  /** A chunk of a vector. */
  private readonly chunkStmt: Statement;
  /** How the file cuts vectors (and list keys and PID ranks) into chunks. */
  readonly chunks: ChunkLayout;
  /** The scan worker, when the engine has one running, the memory its jobs share and this thread's zstd context. */
  private inflater: BlockInflater | null = null;
  private readonly decompressor = new ZstdDecompressor();
  /** Memory for one-byte vectors written ahead (vectorReserve.ts), filled by reserve(). */
  private readonly reserved: VectorReserve;
  /** First uses whose chunks the worker helped decompress (tests read it). */
  sharedLoads = 0;
  /** Tests: a shared load waits for the worker's first claim before claiming any, so the worker surely takes part. */
  workerFirst = false;

  constructor(
    db: Db,
    private readonly path: string,
    private readonly records: number,
    meta: Readonly<Record<string, string>>,
    budgetBytes: number,
    private readonly guard: GuardedRead,
    /** What identifies the file's contents (pieceFetch.ts): the worker checks it reads the same file. */
    private readonly identity: string,
  ) {
    this.columns = new KeptVectors(budgetBytes);
    this.reserved = new VectorReserve(records);
    this.columnStmt = db.prepare('SELECT name, encoding, kind, length, dict, crc FROM columns WHERE name = ?');
    // meta is under its checksum: a size it does not state is a writer's, not damage.
    const chunks = ChunkLayout.fromMeta(meta.vector_chunk);
    if (!chunks) throw new AppError('unavailable', `The dataset file ${path} states no vector chunk size this version reads.`);
    this.chunks = chunks;
    this.chunkStmt = db.prepare('SELECT crc, data FROM vector_chunks WHERE name = ? AND chunk = ?');
  }

  /** Lets first uses of many chunks share their decompression with `inflater` (null: this thread alone). */
  useInflater(inflater: BlockInflater | null): void {
    this.inflater = inflater;
  }

  /** Drops every kept vector (the dataset is closed). */
  clear(): void {
    this.columns.clear();
    this.decompressor.close();
  }

  /**
   * The vector of a filterable field, with at least the values at `range` loaded (and checked):
   * a caller reads `data` inside the range it named, nowhere else ('all': everywhere). Loaded
   * values are kept; only the chunks a range needs are loaded.
   */
  column(index: number, range: PositionRange | 'all'): ColumnVector {
    const column = this.loadedColumn(index);
    const loaded = column.loaded;
    if (loaded) {
      const { from, to } = range === 'all' ? { from: 0, to: loaded.length } : this.chunks.covering(range.first, range.count);
      const missing: number[] = [];
      for (let c = from; c < to; c++) if (!loaded[c]) missing.push(c);
      if (missing.length > 0) {
        const bytes = this.guard(`the vector of ${column.header.name}`, () => this.loadChunks(column, missing));
        for (const c of missing) loaded[c] = 1;
        this.columns.grow(index, bytes);
        // Checked only when a chunk came in: a warm count does not walk the chunk flags every time.
        if (loaded.every((l) => l === 1)) column.loaded = null;
      }
    }
    return column.vector;
  }

  /**
   * A field's encoding and dictionary, without reading its values, and without the vector's memory:
   * a kept vector is the size of the file (all 392 fields' at 100M: 44 GB of address space, which
   * then kept the process from starting another).
   */
  columnInfo(index: number): ColumnInfo {
    const kept = this.columns.peek(index);
    if (kept)
      return withDictionary({ field: kept.vector.field, encoding: kept.vector.encoding, dictionary: kept.dictionary }, kept.dictionary);
    let info = this.infos.get(index);
    if (!info) {
      const field = FIELDS[index]!.name;
      const { vector, dictionary } = this.guard(`the vector of ${field}`, () => this.loadColumn(field, false));
      info = withDictionary({ field: vector.field, encoding: vector.encoding, dictionary }, dictionary);
      this.infos.set(index, info);
    }
    return info;
  }

  /**
   * The latitude and longitude of each position of `range`, interleaved ([lat, lon] of range.first,
   * then of the next, …), from the coordinate vectors, read for this call and not kept.
   */
  coordinates(range: StateRange): Float64Array {
    const out = new Float64Array(range.count * 2);
    ['LATITUDE', 'LONGITUDE'].forEach((field, offset) =>
      this.readRange(field, range, (header, values, start, end, at) =>
        copyCoordinates(header.encoding, values, start, end, out, at * 2 + offset),
      ),
    );
    return out;
  }

  /**
   * A vector's values over `range`, a chunk at a time, read for this call and not kept:
   * `visit` gets each chunk's values, the part of them inside the range [start, end) and where in the
   * range that part begins. Returns the vector's header and dictionary.
   */
  readRange(
    field: string,
    range: StateRange,
    visit: (header: VectorHeader, values: Vector, start: number, end: number, at: number) => void,
  ): ColumnVector {
    const { header, vector } = this.guard(`the vector of ${field}`, () => this.loadColumn(field, false));
    const Ctor = VECTOR_TYPES[header.kind];
    const size = this.chunks.size;
    const scratch = new Ctor(size);
    const { from, to } = this.chunks.covering(range.first, range.count);
    for (let c = from; c < to; c++) {
      const values = this.chunks.values(c, this.records);
      const bytes = new Uint8Array(scratch.buffer, 0, values * Ctor.BYTES_PER_ELEMENT);
      this.guard(`the vector of ${field}`, () => this.readChunk(header, c, bytes));
      const start = Math.max(range.first, c * size) - c * size;
      const end = Math.min(range.first + range.count, c * size + values) - c * size;
      visit(header, scratch, start, end, c * size + start - range.first);
    }
    return vector;
  }

  /** Makes the memory of `count` one-byte vectors ready, written ahead over `ranges` (vectorReserve.ts). */
  reserve(count: number, ranges: readonly ReserveRange[]): void {
    this.reserved.fill(count, ranges, this.columns.budget);
  }

  /** One step of at most `stepBytes` towards `count` ready vectors (VectorReserve.fillStep); false once they are. */
  reserveStep(count: number, ranges: readonly ReserveRange[], stepBytes: number): boolean {
    return this.reserved.fillStep(count, ranges, stepBytes, this.columns.budget);
  }

  /** The reserve's vectors ready and the bytes written ahead in them. */
  reserveHeld(): { vectors: number; bytes: number } {
    return this.reserved.held();
  }

  /** Bytes of vectors kept in memory, the budget, and how many fields were dropped to stay within it. */
  vectorMemory(): { bytes: number; budget: number; dropped: number } {
    return { bytes: this.columns.bytes, budget: this.columns.budget, dropped: this.columns.dropped };
  }

  private loadedColumn(index: number): LoadedColumn {
    let column = this.columns.use(index);
    if (!column) {
      const field = FIELDS[index]!.name;
      // A dictionary already read for columnInfo is not read again.
      column = this.guard(`the vector of ${field}`, () => this.loadColumn(field, true, this.infos.get(index)?.dictionary));
      this.columns.add(index, column);
    }
    return column;
  }

  /** The header, checked, and (`values`) a vector of zeros its chunks are read into, else an empty one. */
  private loadColumn(field: string, values = true, known?: DictionaryText | null): LoadedColumn {
    const row = this.columnStmt.get(field) as StoredColumn | undefined;
    if (!row || row.name !== field) throw datasetDamaged(this.path, `the vector of ${field} is missing`);
    if (row.length !== this.records) throw datasetDamaged(this.path, `the vector of ${field} has the wrong length`);
    const header: VectorHeader = { name: row.name, encoding: row.encoding, kind: row.kind, length: this.records, dict: row.dict };
    if (this.chunks.headerCrc(header) !== row.crc || !VECTOR_TYPES[row.kind])
      throw datasetDamaged(this.path, `the vector of ${field} fails its checksum`);
    // Shared memory, so a second core can scan pieces of a state without a copy (query/twoCoreScan.ts).
    const data: Vector = (values && row.kind === 'u8' && this.reserved.take()) || sharedVector(row.kind, values ? this.records : 0);
    const loaded = new Uint8Array(this.chunks.count(this.records));
    const dictionary = row.dict === null ? null : (known ?? new DictionaryText(row.dict));
    const vector = withDictionary({ field, encoding: row.encoding, data }, dictionary);
    // The values count as they load (column()).
    return { vector, dictionary, header, loaded, bytes: row.dict?.length ?? 0 };
  }

  /**
   * Reads and checks chunks of a vector, each decompressed straight into its place;
   * their bytes. Several are read with the scan worker (inflateJob.ts): a field's first use in
   * California at 10M reads 19 chunks, ~11 ms of SQLite and checksums and up to ~10 ms of zstd on
   * one core for a 32-bit vector.
   */
  private loadChunks(column: LoadedColumn, chunks: readonly number[]): number {
    const places = chunks.map((c) => this.chunks.place(column.vector.data, c));
    const memory = column.vector.data.buffer;
    let statuses: number[] | null = null;
    if (this.inflater && chunks.length >= SHARE_FROM && memory instanceof SharedArrayBuffer) {
      // The dictionary is not the worker's business (a ZIP's is ~300 KB of text to copy).
      const header = { ...column.header, dict: null };
      const source = { kind: 'chunks' as const, path: this.path, identity: this.identity, header, chunkSize: this.chunks.size };
      const job = inflateJob(
        source,
        chunks,
        memory,
        places.map((p) => ({ from: p.byteOffset, room: p.byteLength })),
      );
      const fetch = chunkFetch(this.chunkStmt, this.path, this.chunks, column.header);
      // A late worker writes the very bytes this thread writes, into the same place: nothing to leave.
      const options = { workerFirst: this.workerFirst, leave: () => undefined };
      if (readShared(this.inflater, job, fetch, this.decompressor, options)) statuses = chunks.map((_, i) => statusOf(job, i));
    }
    if (statuses?.includes(BY_WORKER)) this.sharedLoads++;
    let bytes = 0;
    chunks.forEach((c, i) => {
      const status = statuses?.[i];
      // Not shared, unfinished or damaged: read and decompressed here, which reports damage.
      if (status !== BY_READER && status !== BY_WORKER) this.readChunk(column.header, c, places[i]!);
      bytes += places[i]!.byteLength;
    });
    return bytes;
  }

  private readChunk(header: VectorHeader, chunk: number, out: Uint8Array): void {
    this.chunks.decode(this.path, header, chunk, storedChunk(this.chunkStmt, this.path, header.name, chunk), out);
  }

  /**
   * Checks every vector's header and its chunks' checksums, a step at a time (Dataset.verifySteps);
   * the chunks are not decompressed, as the record blocks are not (BlockRecords.verifySteps).
   */
  *verifySteps(): Generator<void, void, void> {
    for (let i = 0; i < FIELDS.length; i++) {
      // Read for the check only: the vectors a query uses stay as they are.
      const field = FIELDS[i]!.name;
      const column = this.columns.peek(i) ?? this.guard(`the vector of ${field}`, () => this.loadColumn(field, false));
      yield;
      for (let c = 0; c < this.chunks.count(this.records); c++) {
        this.guard(`the vector of ${field}`, () =>
          this.chunks.checked(this.path, column.header, c, storedChunk(this.chunkStmt, this.path, field, c)),
        );
        // A chance to yield every 16 chunks (~0.2 ms of reading and checksums).
        if (c % 16 === 15) yield;
      }
      yield;
    }
  }
}
