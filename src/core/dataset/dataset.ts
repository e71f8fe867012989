// An open dataset file, read-only: the one place that holds SQL over the dataset's tables.
// Everything above it speaks in positions (0-based, in (STATE, PID) order). Format 5 (compressed,
// checksummed blocks and vector chunks), 4 (whole vectors) and 3 (plain rows) open; docs/dataset-format.md.
// Any damage a read meets (a checksum, or SQLite finding its pages malformed) is `dataset_damaged`.
import { existsSync } from 'node:fs';
import { AppError } from '../../shared/errors';
import { FIELDS, PREVIEW_FIELDS, fieldIndex } from '../../shared/fields';
import { settings } from '../config';
import { openSqlite, type Db, type Statement } from '../sqlite';
import { decodeVector, tablesChecksum } from './blockCodec';
import { BlockRecords } from './blockRecords';
import { blobToVector, sharedVector, VECTOR_TYPES, type Vector, type VectorKind } from './columnVector';
import { copyCoordinates } from './coordinateVectors';
import { asDamage, datasetDamaged, guardRead } from './damage';
import { checkDatasetFile } from './fileCheck';
import { HouseholdLists } from './householdCollisions';
import { KeptVectors } from './keptVectors';
import { LIST_KEYS_KEY, ListKeyReader, listKeysUsable, type ListKeyField } from './listKeys';
import { parseStoredValues, type RecordValues } from './recordFormat';
import type { RecordSource } from './recordSource';
import { DATASET_FORMAT_VERSION, LEGACY_FORMAT_VERSION, READABLE_FORMAT_VERSIONS, WHOLE_VECTORS_FORMAT_VERSION } from './schema';
import { TextRecords } from './textRecords';
import { ChunkLayout, type VectorHeader } from './vectorChunks';

export interface StateRange {
  state: string;
  first: number;
  count: number;
}

/** A field's vector: the values (integers), dictionary codes, string hashes or millionths of a degree (docs/dataset-format.md). */
export interface ColumnVector {
  field: string;
  encoding: 'value' | 'dict' | 'hash' | 'micro';
  data: Vector;
  /** For 'dict' fields, the value of each code. */
  dict: string[] | null;
}

export type Row = RecordValues;

/** Positions [first, first + count): what a caller of column() will read of the vector. */
export interface PositionRange {
  first: number;
  count: number;
}

/** A vector as far as it is loaded: format 5 loads it a chunk at a time, older formats whole. */
interface LoadedColumn {
  vector: ColumnVector;
  header: VectorHeader;
  /** 1 for each chunk in `vector.data`; null when the whole vector is there. */
  loaded: Uint8Array | null;
  /** Memory it holds: its loaded values and its dictionary's text (KeptVectors' budget). */
  bytes: number;
}

export interface OpenOptions {
  /** Bytes of vectors kept in memory (keptVectors.ts); the setting AUDIENCE_DESK_VECTOR_MEMORY_MB by default. */
  vectorMemoryBytes?: number;
}

const PREVIEW_INDEXES = PREVIEW_FIELDS.map((name) => fieldIndex(name));
// parseStoredValues reads them in one pass from the start of a record: they must ascend.
if (PREVIEW_INDEXES.some((v, i) => i > 0 && v <= PREVIEW_INDEXES[i - 1]!)) throw new Error('Preview fields must be in catalog order.');

/** A `columns` row: format 5 has no data (its chunks are rows of their own), format 3 no length or crc. */
interface StoredColumn {
  name: string;
  encoding: ColumnVector['encoding'];
  kind: VectorKind;
  length: number | null;
  dict: string | null;
  crc: number | null;
  data: Uint8Array;
}

export class Dataset {
  readonly records: number;
  readonly meta: Readonly<Record<string, string>>;
  readonly formatVersion: string;
  /** What a read or the verify found damaged (the message of the `dataset_damaged` error), else null. */
  damage: string | null = null;
  private readonly states: Map<string, StateRange>;
  private readonly columns: KeptVectors<LoadedColumn>;
  /** The fields the file has a vector of: every filterable one, and LATITUDE and LONGITUDE in files written since 27 November 2026. */
  private readonly stored: ReadonlySet<string>;
  private readonly columnStmt: Statement;
  /** Format 5: a chunk of a vector (null for the older formats, whose vectors are one piece). */
  private readonly chunkStmt: Statement | null = null;
  private readonly chunks: ChunkLayout | null = null;
  private readonly source: RecordSource;
  private closed = false;
  private readonly closers: Array<() => void> = [];
  private readonly households: HouseholdLists;
  /** The file's list keys: null for a file written before them (or under other normalisation rules). */
  private readonly listKeyReader: ListKeyReader | null = null;

  private constructor(
    private readonly db: Db,
    readonly path: string,
    options: OpenOptions,
  ) {
    this.columns = new KeptVectors(options.vectorMemoryBytes ?? settings().vectorMemoryMb * 2 ** 20);
    const meta = Object.fromEntries((db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]).map(([k, v]) => [k, v]));
    const version = meta.format_version;
    if (!(READABLE_FORMAT_VERSIONS as readonly (string | undefined)[]).includes(version))
      throw new AppError(
        'unavailable',
        `The dataset file ${path} has format ${version ?? 'unknown'}; this version of Audience Desk reads formats ${READABLE_FORMAT_VERSIONS.join(', ')}.`,
      );
    const states = db.prepare('SELECT state, first, count FROM states').all() as StateRange[];
    if (version !== LEGACY_FORMAT_VERSION && meta.checksum !== tablesChecksum(meta, states))
      throw datasetDamaged(path, 'its table of contents (meta and state ranges) fails its checksum');
    this.meta = meta;
    this.households = new HouseholdLists(meta, path);
    this.formatVersion = version!;
    this.records = Number(meta.records);
    if (!Number.isSafeInteger(this.records) || this.records < 0) throw datasetDamaged(path, 'its record count is not a number');
    this.states = new Map(states.map((r) => [r.state, r]));
    this.stored = new Set(db.prepare('SELECT name FROM columns').pluck().all() as string[]);
    // What each format keeps in `columns`: format 5 a header (the values are chunks of their own),
    // format 4 the whole compressed vector, format 3 the raw vector without length or checksum.
    this.columnStmt = db.prepare(
      version === DATASET_FORMAT_VERSION
        ? 'SELECT name, encoding, kind, length, dict, crc FROM columns WHERE name = ?'
        : version === WHOLE_VECTORS_FORMAT_VERSION
          ? 'SELECT name, encoding, kind, length, dict, crc, data FROM columns WHERE name = ?'
          : 'SELECT name, encoding, kind, NULL AS length, dict, NULL AS crc, data FROM columns WHERE name = ?',
    );
    if (version === DATASET_FORMAT_VERSION) {
      // meta is under its checksum: a size it does not state is a writer's, not damage.
      this.chunks = ChunkLayout.fromMeta(meta.vector_chunk);
      if (!this.chunks) throw new AppError('unavailable', `The dataset file ${path} states no vector chunk size this version reads.`);
      this.chunkStmt = db.prepare('SELECT crc, data FROM vector_chunks WHERE name = ? AND chunk = ?');
      // Checked by the verify whatever rules they were written with; read only under this version's.
      if (meta[LIST_KEYS_KEY] !== undefined)
        this.listKeyReader = new ListKeyReader(db, path, this.chunks, this.records, listKeysUsable(meta));
    }
    if (version === LEGACY_FORMAT_VERSION) {
      this.source = new TextRecords(db, path, this.records);
    } else {
      const blocks = new BlockRecords(db, path, this.records, Number(meta.block_records));
      this.closers.push(() => blocks.close());
      this.source = blocks;
    }
  }

  /** Opens a dataset file read-only; a missing, truncated, foreign or damaged file is one clear sentence naming it. */
  static open(path: string, options: OpenOptions = {}): Dataset {
    if (!existsSync(path)) throw new AppError('unavailable', `No dataset file at ${path}.`);
    checkDatasetFile(path);
    let db: Db | undefined;
    try {
      db = openSqlite(path, { readonly: true, fileMustExist: true });
      db.pragma('query_only = ON');
      // A small page cache and no memory map: reads are sequential or a page at a time and the OS
      // page cache serves repeats, so an export of a whole state keeps a flat, small footprint.
      db.pragma('cache_size = -16384');
      db.pragma('mmap_size = 0');
      return new Dataset(db, path, options);
    } catch (e) {
      db?.close();
      const damage = asDamage(e, path, 'its tables do not read');
      if (damage !== e) throw damage;
      // A SQLite file without our tables, or any other failure to read them: not a dataset.
      if (!(e instanceof AppError)) throw new AppError('unavailable', `The file ${path} is not an Audience Desk dataset.`);
      throw e;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
    this.columns.clear();
    for (const closer of this.closers.splice(0)) closer();
  }

  /** Runs `closer` when the dataset is closed (a background verify stops). */
  onClose(closer: () => void): void {
    if (this.closed) closer();
    else this.closers.push(closer);
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  stateRange(state: string): StateRange {
    return this.states.get(state) ?? { state, first: 0, count: 0 };
  }

  stateCounts(): StateRange[] {
    return [...this.states.values()];
  }

  /**
   * The vector of a filterable field, with at least the values at `range` loaded (and checked):
   * a caller reads `data` inside the range it named, nowhere else ('all': everywhere). Loaded
   * values are kept; format 5 loads the chunks a range needs, older formats the whole vector.
   */
  column(index: number, range: PositionRange | 'all'): ColumnVector {
    const column = this.loadedColumn(index);
    const loaded = column.loaded;
    if (loaded) {
      const { from, to } = range === 'all' ? { from: 0, to: loaded.length } : this.chunks!.covering(range.first, range.count);
      let read = false;
      for (let c = from; c < to; c++) {
        if (loaded[c]) continue;
        const bytes = this.guard(`the vector of ${column.header.name}`, () => this.loadChunk(column, c));
        loaded[c] = 1;
        read = true;
        this.columns.grow(index, bytes);
      }
      // Checked only when a chunk came in: a warm count does not walk the chunk flags every time.
      if (read && loaded.every((l) => l === 1)) column.loaded = null;
    }
    return column.vector;
  }

  /** A field's encoding and dictionary, without reading its values. */
  columnInfo(index: number): Pick<ColumnVector, 'field' | 'encoding' | 'dict'> {
    const { field, encoding, dict } = this.loadedColumn(index).vector;
    return { field, encoding, dict };
  }

  /** Whether the file has coordinate vectors (written since 27 November 2026; format 5 only). */
  get hasCoordinates(): boolean {
    return this.chunks !== null && this.stored.has('LATITUDE') && this.stored.has('LONGITUDE');
  }

  /**
   * The latitude and longitude of each position of `range`, interleaved ([lat, lon] of range.first,
   * then of the next, …), from the coordinate vectors, read for this call and not kept; null when the
   * file has none (written before they were), and the caller reads the records.
   */
  coordinates(range: StateRange): Float64Array | null {
    if (!this.hasCoordinates) return null;
    const out = new Float64Array(range.count * 2);
    ['LATITUDE', 'LONGITUDE'].forEach((field, offset) =>
      this.readRange(field, range, (header, values, start, end, at) =>
        copyCoordinates(header.encoding, values, start, end, out, at * 2 + offset),
      ),
    );
    return out;
  }

  /**
   * A format 5 vector's values over `range`, a chunk at a time, read for this call and not kept:
   * `visit` gets each chunk's values, the part of them inside the range [start, end) and where in the
   * range that part begins. Returns the vector's header and dictionary.
   */
  private readRange(
    field: string,
    range: StateRange,
    visit: (header: VectorHeader, values: Vector, start: number, end: number, at: number) => void,
  ): ColumnVector {
    const { header, vector } = this.guard(`the vector of ${field}`, () => this.loadColumn(field, false));
    const Ctor = VECTOR_TYPES[header.kind];
    const size = this.chunks!.size;
    const scratch = new Ctor(size);
    const { from, to } = this.chunks!.covering(range.first, range.count);
    for (let c = from; c < to; c++) {
      const values = this.chunks!.values(c, this.records);
      const bytes = new Uint8Array(scratch.buffer, 0, values * Ctor.BYTES_PER_ELEMENT);
      this.guard(`the vector of ${field}`, () => this.readChunk(header, c, bytes));
      const start = Math.max(range.first, c * size) - c * size;
      const end = Math.min(range.first + range.count, c * size + values) - c * size;
      visit(header, scratch, start, end, c * size + start - range.first);
    }
    return vector;
  }

  /** Bytes of vectors kept in memory, the budget, and how many fields were dropped to stay within it. */
  vectorMemory(): { bytes: number; budget: number; dropped: number } {
    return { bytes: this.columns.bytes, budget: this.columns.budget, dropped: this.columns.dropped };
  }

  private loadedColumn(index: number): LoadedColumn {
    let column = this.columns.use(index);
    if (!column) {
      const field = FIELDS[index]!.name;
      column = this.guard(`the vector of ${field}`, () => this.loadColumn(field));
      this.columns.add(index, column);
    }
    return column;
  }

  /**
   * Format 5: the header, checked, and (`values`) a vector of zeros its chunks are read into, else an
   * empty one. Older formats: the whole vector.
   */
  private loadColumn(field: string, values = true): LoadedColumn {
    const row = this.columnStmt.get(field) as StoredColumn | undefined;
    if (!row || row.name !== field) throw datasetDamaged(this.path, `the vector of ${field} is missing`);
    if (row.length !== null && row.length !== this.records) throw datasetDamaged(this.path, `the vector of ${field} has the wrong length`);
    const header: VectorHeader = { name: row.name, encoding: row.encoding, kind: row.kind, length: this.records, dict: row.dict };
    let data: Vector;
    let loaded: Uint8Array | null = null;
    if (this.chunks) {
      if (this.chunks.headerCrc(header) !== row.crc || !VECTOR_TYPES[row.kind])
        throw datasetDamaged(this.path, `the vector of ${field} fails its checksum`);
      // Shared memory, so a second core can scan pieces of a state without a copy (query/twoCoreScan.ts).
      data = sharedVector(row.kind, values ? this.records : 0);
      loaded = new Uint8Array(this.chunks.count(this.records));
    } else {
      data =
        this.formatVersion === WHOLE_VECTORS_FORMAT_VERSION
          ? decodeVector(this.path, { ...row, length: row.length ?? -1, crc: row.crc ?? -1 })
          : blobToVector(row.kind, row.data);
      if (data.length !== this.records) throw datasetDamaged(this.path, `the vector of ${field} has the wrong length`);
    }
    const dict = row.dict === null ? null : (JSON.parse(row.dict) as string[]);
    const bytes = (row.dict?.length ?? 0) + (loaded ? 0 : data.byteLength);
    return { vector: { field, encoding: row.encoding, data, dict }, header, loaded, bytes };
  }

  /** Reads and checks one chunk of a format 5 vector, decompressed straight into its place; its bytes. */
  private loadChunk(column: LoadedColumn, chunk: number): number {
    const place = this.chunks!.place(column.vector.data, chunk);
    this.readChunk(column.header, chunk, place);
    return place.byteLength;
  }

  private readChunk(header: VectorHeader, chunk: number, out: Uint8Array): void {
    const stored = this.chunkStmt!.get(header.name, chunk) as { crc: number; data: Uint8Array } | undefined;
    if (!stored) throw datasetDamaged(this.path, `chunk ${chunk} of the vector of ${header.name} is missing`);
    this.chunks!.decode(this.path, header, chunk, stored, out);
  }

  /** The stored JSON text of each record at ascending positions, in order. */
  recordTexts(positions: ArrayLike<number>): string[] {
    return this.guard('records', () => this.source.texts(positions));
  }

  /** The stored JSON text of each record as UTF-8 bytes (no decoding), at ascending positions, in order. */
  recordBytes(positions: ArrayLike<number>): Buffer[] {
    return this.guard('records', () => this.source.bytes(positions)) as Buffer[];
  }

  /** Full records (values in catalog order) at ascending positions. */
  fullRows(positions: ArrayLike<number>): Row[] {
    return this.guard('records', () => this.source.texts(positions).map((text) => JSON.parse(text) as Row));
  }

  /**
   * Some fields (catalog indexes, ascending) of every record in [first, first + count), in position
   * order, read a chunk at a time: what list controls match on (households, suppression lists).
   */
  *rangeValues(first: number, count: number, indexes: readonly number[]): Generator<RecordValues> {
    const CHUNK = 4096;
    for (let from = first, end = first + count; from < end; from += CHUNK) {
      const n = Math.min(CHUNK, end - from);
      const positions = Uint32Array.from({ length: n }, (_, k) => from + k);
      yield* this.valuesOf(positions, indexes);
    }
  }

  /** Some fields (catalog indexes, ascending) of records at ascending positions. */
  valuesOf(positions: ArrayLike<number>, indexes: readonly number[]): RecordValues[] {
    return this.guard('records', () => this.valuesAt(positions, indexes));
  }

  /**
   * The HHID hashes that stand for more than one household in some state (householdCollisions.ts):
   * every other hash of the HHID vector is one household within a state. Null for a file written
   * before the writer recorded them (27 November 2026), whose households come from the records.
   */
  householdCollisions(): ReadonlySet<number> | null {
    return this.households.collisions();
  }

  /**
   * Which later household of a listed hash the records of second and later households are
   * (householdCollisions.ts), position to household (1, 2, …); a listed hash's other records are its
   * household 0. Null for a file written before the writer recorded them: those records are read.
   */
  householdSplits(): ReadonlyMap<number, number> | null {
    return this.households.splits();
  }

  /** Whether the file has list keys this version uses (written since they were added, under its rules). */
  get hasListKeys(): boolean {
    return this.listKeyReader?.usable === true;
  }

  /**
   * The list keys of a field over a state's range (listKeys.ts; index 0 for range.first), or null
   * when the file has none this version can use: a list's matcher then reads the records.
   */
  listKeys(field: ListKeyField, range: StateRange): Uint32Array | null {
    const reader = this.listKeyReader;
    if (!reader?.usable) return null;
    // Read for this call, not kept: a list's matcher reads these once a state, and they are the
    // largest vectors (4 bytes a person), which would crowd out the fields queries use.
    const inRange = (name: string) => {
      const values = new Uint32Array(range.count);
      const vector = this.readRange(name, range, (_, chunk, start, end, at) => values.set(chunk.subarray(start, end), at));
      return { vector, values };
    };
    const own = inRange(field);
    if (own.vector.encoding !== 'hash') return null;
    let zip: { codes: Vector; dict: readonly string[] } | undefined;
    if (field === 'ADDRESS') {
      const z = inRange('ZIP');
      if (!z.vector.dict) return null;
      zip = { codes: z.values, dict: z.vector.dict };
    }
    return this.guard(`the list keys of ${field}`, () => reader.read(field, range.first, range.count, own.values, zip));
  }

  /** The preview fields (PID, FNAME, LNAME, CITY, STATE) of records at ascending positions. */
  previewRows(positions: ArrayLike<number>): Row[] {
    return this.valuesOf(positions, PREVIEW_INDEXES);
  }

  /**
   * Values at `indexes` of records at ascending positions: most wanted fields sit in a record's
   * first characters, so those are read, and a whole record only when they do not reach.
   */
  private valuesAt(positions: ArrayLike<number>, indexes: readonly number[]): RecordValues[] {
    const starts = this.source.starts(positions);
    return starts.map((start, k) => {
      const values = parseStoredValues(start, indexes) ?? parseStoredValues(this.source.texts([positions[k]!])[0]!, indexes);
      if (!values) throw datasetDamaged(this.path, `the record at position ${positions[k]} is malformed`);
      return values;
    });
  }

  /**
   * Checks every record block and every vector, a step at a time (the caller runs the steps when it
   * likes: all at once for `cli verify`, between requests after open). Throws `dataset_damaged`.
   */
  *verifySteps(): Generator<void, void, void> {
    const records = this.source.verifySteps();
    for (;;) {
      const step = this.guard('records', () => records.next());
      if (step.done) break;
      yield;
    }
    for (let i = 0; i < FIELDS.length; i++) {
      // Coordinates have vectors only in files written since they were added.
      if (FIELDS[i]!.type === 'number' && !this.stored.has(FIELDS[i]!.name)) continue;
      // Read for the check only: the vectors a query uses stay as they are.
      const field = FIELDS[i]!.name;
      const column = this.columns.peek(i) ?? this.guard(`the vector of ${field}`, () => this.loadColumn(field, false));
      yield;
      if (!this.chunks) continue;
      const width = VECTOR_TYPES[column.header.kind].BYTES_PER_ELEMENT;
      // Checked into a scratch: the vectors a query uses stay as they are.
      const scratch = new Uint8Array(this.chunks.size * width);
      for (let c = 0; c < this.chunks.count(this.records); c++) {
        const out = scratch.subarray(0, this.chunks.values(c, this.records) * width);
        this.guard(`the vector of ${field}`, () => this.readChunk(column.header, c, out));
        if (c % 16 === 15) yield;
      }
      yield;
    }
    if (this.listKeyReader) {
      const keys = this.listKeyReader.verifySteps();
      while (!this.guard('the list keys', () => keys.next()).done) yield;
    }
  }

  /** Runs a read; damage becomes `dataset_damaged` and is remembered in `damage`. */
  private guard<T>(what: string, read: () => T): T {
    try {
      return guardRead(this.path, what, read);
    } catch (e) {
      if (e instanceof AppError && e.code === 'dataset_damaged') this.damage ??= e.message;
      throw e;
    }
  }
}
