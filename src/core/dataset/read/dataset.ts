// An open dataset file, read-only: with the parts it delegates to (its vectors, datasetVectors.ts;
// its records, blockRecords.ts; its list keys, listKeys.ts), the one place that holds SQL over the
// dataset's tables. Everything above it speaks in positions (0-based, state by state). It reads the
// current format only (format/schema.ts); an older file is refused with the command that upgrades it
// (legacy/). docs/dataset-format.md.
// Any damage a read meets (a checksum, or SQLite finding its pages malformed) is `dataset_damaged`.
import { existsSync } from 'node:fs';
import { AppError } from '../../../shared/errors';
import { PREVIEW_FIELDS, fieldIndex } from '../../../shared/fields';
import { settings } from '../../config';
import { openSqlite, type Db } from '../../sqlite';
import { tablesChecksum } from '../codec/blockCodec';
import { BlockReadAhead } from './blockReadAhead';
import { BlockRecords } from './blockRecords';
import type { BlockInflater } from './inflateJob';
import { datasetIdentity, type PieceSource } from './pieceFetch';
import { asDamage, datasetDamaged, guardRead } from '../format/damage';
import { checkDatasetFile } from '../format/fileCheck';
import { HouseholdLists } from '../format/householdCollisions';
import type { Vector } from '../codec/columnVector';
import type { DictionaryText } from '../codec/dictionaryText';
import { DatasetVectors } from './datasetVectors';
import type { ColumnVector, PositionRange, StateRange } from '../format/datasetTypes';
import {
  PID_ORDER,
  PID_ORDER_KEY,
  PidRankReader,
  RANKED_ORDER,
  RECORD_ORDER_KEY,
  STORED_PID_ORDER,
  type StateOrder,
} from '../format/pidRanks';
import { LIST_KEYS_KEY, ListKeyReader, listKeysUsable, type ListKeyField } from '../format/listKeys';
import { parseStoredValues, type RecordValues } from '../codec/recordFormat';
import type { RecordSource } from './recordSource';
import { DATASET_FORMAT_VERSION } from '../format/schema';
import { formatRefusal } from '../legacy/legacyFormats';

export type { ColumnVector, PositionRange, StateRange } from '../format/datasetTypes';

export type Row = RecordValues;

export interface OpenOptions {
  /** Bytes of vectors kept in memory (keptVectors.ts); the setting AUDIENCE_DESK_VECTOR_MEMORY_MB by default. */
  vectorMemoryBytes?: number;
}

const PREVIEW_INDEXES = PREVIEW_FIELDS.map((name) => fieldIndex(name));
// parseStoredValues reads them in one pass from the start of a record: they must ascend.
if (PREVIEW_INDEXES.some((v, i) => i > 0 && v <= PREVIEW_INDEXES[i - 1]!)) throw new Error('Preview fields must be in catalog order.');

export class Dataset {
  readonly records: number;
  readonly meta: Readonly<Record<string, string>>;
  readonly formatVersion: string;
  /** What a read or the verify found damaged (the message of the `dataset_damaged` error), else null. */
  damage: string | null = null;
  private readonly states: Map<string, StateRange>;
  private readonly vectors: DatasetVectors;
  private readonly source: RecordSource;
  /** The record blocks. */
  readonly blocks: BlockRecords;
  private closed = false;
  private readonly closers: Array<() => void> = [];
  private readonly households: HouseholdLists;
  /** Each position's PID rank in its state, for a file not in PID order (pidRanks.ts). */
  private readonly pidRanks: PidRankReader;
  /** The file's list keys: null when its meta names none (or names other normalisation rules). */
  private readonly listKeyReader: ListKeyReader | null = null;

  private constructor(
    private readonly db: Db,
    readonly path: string,
    options: OpenOptions,
  ) {
    const meta = Object.fromEntries((db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]).map(([k, v]) => [k, v]));
    const version = meta.format_version;
    if (version !== DATASET_FORMAT_VERSION) throw formatRefusal(path, version);
    const states = db.prepare('SELECT state, first, count FROM states').all() as StateRange[];
    if (meta.checksum !== tablesChecksum(meta, states))
      throw datasetDamaged(path, 'its table of contents (meta and state ranges) fails its checksum');
    this.meta = meta;
    this.households = new HouseholdLists(meta, path);
    this.formatVersion = version;
    this.records = Number(meta.records);
    if (!Number.isSafeInteger(this.records) || this.records < 0) throw datasetDamaged(path, 'its record count is not a number');
    this.states = new Map(states.map((r) => [r.state, r]));
    const budget = options.vectorMemoryBytes ?? settings().vectorMemoryMb * 2 ** 20;
    // What a worker reading this file beside it checks it is reading (pieceFetch.ts).
    const identity = datasetIdentity(meta);
    this.vectors = new DatasetVectors(db, path, this.records, meta, budget, (what, read) => this.guard(what, read), identity);
    // Checked by the verify whatever rules they were written with; read only under this version's.
    if (meta[LIST_KEYS_KEY] !== undefined)
      this.listKeyReader = new ListKeyReader(db, path, this.vectors.chunks, this.records, listKeysUsable(meta));
    const order = meta[RECORD_ORDER_KEY];
    if (order !== PID_ORDER && order !== RANKED_ORDER)
      throw datasetDamaged(path, `its records are in an order this version does not know (${(order ?? 'none').slice(0, 20)})`);
    const storedOrder = meta[PID_ORDER_KEY];
    if (storedOrder !== undefined && storedOrder !== STORED_PID_ORDER)
      throw datasetDamaged(path, `it names a PID order this version does not know (${storedOrder.slice(0, 20)})`);
    this.pidRanks = new PidRankReader(db, path, this.vectors.chunks, this.records, order === RANKED_ORDER, storedOrder !== undefined);
    const blocks = new BlockRecords(db, path, this.records, Number(meta.block_records), identity);
    this.closers.push(() => blocks.close());
    this.source = blocks;
    this.blocks = blocks;
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
    this.vectors.clear();
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

  /** The vector of a filterable field, loaded at least at `range` and kept (DatasetVectors.column). */
  column(index: number, range: PositionRange | 'all'): ColumnVector {
    return this.vectors.column(index, range);
  }

  /** A field's encoding and dictionary (`dictionary` finds codes without making the values: dictionaryText.ts), without its values. */
  columnInfo(index: number): Pick<ColumnVector, 'field' | 'encoding' | 'dict'> & { dictionary: DictionaryText | null } {
    return this.vectors.columnInfo(index);
  }

  /** Each position's [lat, lon] in `range`, interleaved (DatasetVectors.coordinates). */
  coordinates(range: StateRange): Float64Array {
    return this.vectors.coordinates(range);
  }

  /** Bytes of vectors kept in memory, the budget, and how many fields were dropped to stay within it. */
  vectorMemory(): { bytes: number; budget: number; dropped: number } {
    return this.vectors.vectorMemory();
  }

  /**
   * Writes ahead the memory of `count` one-byte vectors over the largest states' positions first
   * (vectorReserve.ts), so that the next first uses of fields do not pay for fresh pages: the
   * serving start-up's (EmbeddedEngine.ready).
   */
  reserveVectorMemory(count: number): void {
    this.vectors.reserve(count, this.largestStatesFirst());
  }

  /**
   * Writes ahead at most `stepBytes` more towards `count` reserved one-byte vectors (a field took
   * one since); false once `count` are ready. The quiet write-ahead's (query/writeAhead.ts).
   */
  reserveVectorMemoryStep(count: number, stepBytes: number): boolean {
    return this.vectors.reserveStep(count, this.largestStatesFirst(), stepBytes);
  }

  private largestStatesFirst(): StateRange[] {
    return this.stateCounts()
      .filter((s) => s.count > 0)
      .sort((a, b) => b.count - a.count);
  }

  /** One-byte vectors' memory written ahead and not yet taken by a field: how many, and the bytes written. */
  reservedVectorMemory(): { vectors: number; bytes: number } {
    return this.vectors.reserveHeld();
  }

  /** The stored JSON text of each record at the positions given, in order. */
  recordTexts(positions: ArrayLike<number>): string[] {
    return this.guard('records', () => this.source.texts(positions));
  }

  /** The stored JSON text of each record as UTF-8 bytes (no decoding), at the positions given, in order. */
  recordBytes(positions: ArrayLike<number>): Buffer[] {
    return this.guard('records', () => this.source.bytes(positions)) as Buffer[];
  }

  /** Full records (values in catalog order) at the positions given. */
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

  /** Some fields (catalog indexes, ascending) of records at the positions given. */
  valuesOf(positions: ArrayLike<number>, indexes: readonly number[]): RecordValues[] {
    return this.guard('records', () => this.valuesAt(positions, indexes));
  }

  /**
   * The HHID hashes that stand for more than one household in some state (householdCollisions.ts):
   * every other hash of the HHID vector is one household within a state. Null for a file whose meta
   * has no `hhid_collisions` (an older writer's), whose households come from the records.
   */
  householdCollisions(): ReadonlySet<number> | null {
    return this.households.collisions();
  }

  /**
   * Which later household of a listed hash the records of second and later households are
   * (householdCollisions.ts), position to household (1, 2, …); a listed hash's other records are its
   * household 0. Null when the file's meta has no such list: those records are read.
   */
  householdSplits(): ReadonlyMap<number, number> | null {
    return this.households.splits();
  }

  /**
   * Lets reads of many record blocks and first uses of many vector chunks share their
   * decompression with the scan worker (inflateJob.ts); null: this thread alone.
   */
  useInflater(inflater: BlockInflater | null): void {
    this.blocks.useInflater(inflater);
    this.vectors.useInflater(inflater);
  }

  /** Whether a state's positions are in PID order (else in household order, with PID ranks stored). */
  get inPidOrder(): boolean {
    return !this.pidRanks.stored;
  }

  /**
   * A state's PID order (`order`: at index r, the offset of its r-th lowest PID from range.first) and
   * its positions' ranks; null when its positions are in PID order already. Read for the call (8 bytes
   * a person), not kept.
   */
  pidOrder(range: StateRange): StateOrder | null {
    return this.guard('the PID ranks', () => this.pidRanks.order(range.first, range.count));
  }

  /** pidOrder() in steps of ~1 ms or less (PidRankReader.orderSteps), for a thread that waits between them. */
  pidOrderSteps(range: StateRange): Generator<void, StateOrder | null> {
    return this.guardSteps('the PID ranks', this.pidRanks.orderSteps(range.first, range.count));
  }

  /** Reads of record blocks that only bring the file's pages into the OS cache (query/fileReadAhead.ts). */
  blockReadAhead(): BlockReadAhead {
    return new BlockReadAhead(this.db, this.records, Number(this.meta.block_records));
  }

  /** Whether the file stores its states' PID orders (pidOrderChunk()); files written before it do not. */
  get storesPidOrder(): boolean {
    return this.pidRanks.orderStored;
  }

  /** The positions a chunk of the stored PID order covers. */
  get pidOrderChunkSize(): number {
    return this.pidRanks.chunkSize;
  }

  /** What the scan worker needs to read the stored PID order's chunks beside this thread; null when the file stores none. */
  get pidOrderSource(): PieceSource | null {
    return this.pidRanks.orderSource(datasetIdentity(this.meta));
  }

  /** Chunk `c` of the stored PID order, checked (at index k: for position c * pidOrderChunkSize + k, the offset of the state's PID of rank position - first). */
  pidOrderChunk(c: number, into?: Uint32Array): Uint32Array {
    return this.guard('the stored PID order', () => this.pidRanks.orderChunk(c, into));
  }

  /** Whether the file has list keys this version uses (meta list_keys names this version's rules). */
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
      const vector = this.vectors.readRange(name, range, (_, chunk, start, end, at) => values.set(chunk.subarray(start, end), at));
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

  /** The preview fields (PID, FNAME, LNAME, CITY, STATE) of records at the positions given. */
  previewRows(positions: ArrayLike<number>): Row[] {
    return this.valuesOf(positions, PREVIEW_INDEXES);
  }

  /**
   * Values at `indexes` of records at the positions given: most wanted fields sit in a record's
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
    yield* this.guardSteps('records', this.source.verifySteps());
    yield* this.vectors.verifySteps();
    if (this.listKeyReader) yield* this.guardSteps('the list keys', this.listKeyReader.verifySteps());
    // Each state's ranks (every chunk checked as it is read, the states covering every position) and
    // that they are a permutation of its records: else pages would skip or repeat people; then its
    // stored order against them. Both a chunk (or a slice of ranks) a step: California's order at
    // 30M is ~200 ms of work and its stored order 55 chunks, which in one step each ran beside
    // whatever request came meanwhile.
    if (this.pidRanks.stored)
      for (const range of this.states.values()) {
        const built = (yield* this.pidOrderSteps(range))!;
        // The stored order is what pages read first: it must be the order the ranks give.
        if (this.pidRanks.orderStored)
          yield* this.guardSteps('the stored PID order', this.pidRanks.storedOrderChecks(range.first, built.order));
      }
  }

  /** Runs `steps` one at a time, each a read guard() runs, yielding between them; returns what they return. */
  private *guardSteps<T>(what: string, steps: Generator<void, T>): Generator<void, T> {
    for (;;) {
      const step = this.guard(what, () => steps.next());
      if (step.done) return step.value;
      yield;
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
