// Writes a new dataset file (the current format, docs/dataset-format.md) from records state by state, each
// state in PID order or, with each record's PID rank, in an order of the caller's (pidRanks.ts):
// the records (compressed blocks), the per-field vectors and the state ranges go to `<target>.building-<pid>`, which is published (synced, renamed over
// the target: atomicFile.ts) only once complete, so a crash or cancel leaves the old file or none.
import { rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { publishFile } from '../../fs/atomicFile';
import { BackgroundSync } from '../../fs/backgroundSync';
import { createPrivateDatabaseFile } from '../../fs/privateFile';
import { escapeRegExp, removeStaleFiles } from '../../fs/staleFiles';
import { FIELDS } from '../../../shared/fields';
import { openSqlite, type Db, type Statement } from '../../sqlite';
import { ColumnSet, DICTIONARY_LIMIT } from './columnSet';
import type { BuiltColumn } from '../codec/columnVector';
import { HHID_COLLISIONS_KEY, HHID_SPLITS_KEY, HouseholdCollisions } from '../format/householdCollisions';
import { RECORD_LEVEL, RECORDS_PER_BLOCK, tablesChecksum } from '../codec/blockCodec';
import { ChunkLayout, VECTOR_CHUNK } from '../codec/vectorChunks';
import { VectorSpill } from './vectorSpill';
import { RANKED_ORDER, PID_ORDER, PID_ORDER_KEY, PidRankWriter, RECORD_ORDER_KEY, STORED_PID_ORDER } from '../format/pidRanks';
import { LIST_KEYS_KEY, ListKeyWriter, listKeysMeta } from '../format/listKeys';
import type { RecordValues } from '../codec/recordFormat';
import { DATASET_DDL, DATASET_FORMAT_VERSION } from '../format/schema';
import { ZstdCompressor } from '../codec/zstdContext';
import { BlockEncoder } from './blockEncoder';
import { BlockText } from './blockText';
import { encodeColumn, type EncodedColumn } from './encodedColumn';
import { LIST_KEYS_AT, type RecordBytes } from './recordExtras';

/** Records a transaction holds (a multiple of RECORDS_PER_BLOCK). */
const BATCH = 160 * RECORDS_PER_BLOCK;
/** Transactions between two background flushes of the file (~10 MB of record blocks). */
const COMMITS_A_FLUSH = 8;
const STATE_INDEX = FIELDS.findIndex((f) => f.name === 'STATE');
const PID_INDEX = FIELDS.findIndex((f) => f.name === 'PID');
const HHID_INDEX = FIELDS.findIndex((f) => f.name === 'HHID');
/** A record's value of a catalog field, for the fields the writer reads besides its text (its HHID, its list keys' sources). */
export type FieldValue = (index: number) => string | number | undefined;

export { DICTIONARY_LIMIT } from './columnSet';
/** Where it has always been imported from (export); it lives in atomicFile.ts. */
export { fsyncPath } from '../../fs/atomicFile';

/**
 * Records go in one of two ways, not mixed: append()/appendWithJson() with their values, and the
 * writer builds the vectors; or by their text, appendText() (the generator) or appendBytes() (the
 * import), and whoever built the vectors (the generator's worker, the import's reading threads,
 * see columnSet.ts) hands them to finish().
 */
export class DatasetWriter {
  readonly tempPath: string;
  private readonly db: Db;
  private readonly insertBlock: Statement;
  /** The block being filled (fewer than RECORDS_PER_BLOCK records). */
  private readonly text = new BlockText();
  /** One kept zstd context for every block (zstdContext.ts). */
  private readonly compressor: ZstdCompressor;
  /** Compresses and inserts the blocks, on a second thread for a large file; flushed before any other insert. */
  private readonly blocks: BlockEncoder;
  private columns: ColumnSet | undefined;
  private spill: VectorSpill | undefined;
  private readonly stateRanges: Array<{ state: string; first: number; count: number }> = [];
  private readonly households = new HouseholdCollisions();
  private readonly listKeys: ListKeyWriter;
  private readonly ranks: PidRankWriter;
  /** Whether records come with PID ranks (set by the first record; all or none do). */
  private ranked: boolean | undefined;
  private lastState = '';
  private lastPid = '';
  private pending = 0;
  private commits = 0;
  /** Flushes the file while it is written, so that publishing it waits less (backgroundSync.ts). */
  private readonly sync: BackgroundSync;
  private done = false;
  count = 0;

  constructor(
    readonly targetPath: string,
    private readonly metadata: Record<string, string> = {},
    /** Distinct values past which a string field is hashed; lowered only by tests. */
    private readonly dictionaryLimit = DICTIONARY_LIMIT,
    /** Positions a vector chunk holds; lowered only by tests (to have several chunks in a small file). */
    private readonly vectorChunks = new ChunkLayout(VECTOR_CHUNK),
    /** zstd level of the record blocks: RECORD_LEVEL, or higher for a file built once and shipped (the bundled sample). */
    private readonly recordLevel = RECORD_LEVEL,
  ) {
    this.compressor = new ZstdCompressor(recordLevel);
    this.tempPath = `${targetPath}.building-${process.pid}`;
    // Those of killed writers to the same target (never a live writer's).
    removeStaleFiles(
      dirname(targetPath),
      new RegExp(`^${escapeRegExp(basename(targetPath))}\\.building-(\\d+)(?:-journal|-wal|-shm|-vectors(?:-\\w+)?)?$`),
    );
    // Our own leftover goes, and the file is made empty and owner-only before SQLite opens it, so the
    // records are never readable by others, not even while the file is being built (privateFile.ts).
    createPrivateDatabaseFile(this.tempPath);
    this.db = openSqlite(this.tempPath);
    this.sync = new BackgroundSync(this.tempPath);
    // A temporary file that is published only when complete needs no journal.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    // 2 KB pages: a household-ordered block (~8.3 KB) overflows its page, and SQLite leaves part of a
    // page unused a block. Measured on 60,000 blocks of the 10M file, bytes a record beyond the blocks'
    // own: 47 at 8 KB pages, 21 at 4 KB, 9.6 at 2 KB, 6.2 at 1 KB; a block read from the page cache
    // took 20, 24 and 29 µs at 4, 2 and 1 KB (docs/dataset-format.md, "Size").
    this.db.pragma('page_size = 2048');
    this.db.exec(DATASET_DDL);
    this.insertBlock = this.db.prepare('INSERT INTO record_blocks (block, crc, data) VALUES (?, ?, ?)');
    this.blocks = new BlockEncoder(recordLevel, this.compressor, (block, crc, data) => this.insertBlock.run(block, crc, data));
    // Every block before them is stored first: rows go into the file in the order they always have.
    const insertListKeys = this.db.prepare('INSERT INTO list_keys (name, chunk, crc, data) VALUES (?, ?, ?, ?)');
    this.listKeys = new ListKeyWriter(this.vectorChunks, (field, chunk, crc, data) => {
      this.blocks.flush();
      insertListKeys.run(field, chunk, crc, data);
    });
    const insertRanks = this.db.prepare('INSERT INTO pid_ranks (chunk, crc, data) VALUES (?, ?, ?)');
    const insertOrder = this.db.prepare('INSERT INTO pid_order (chunk, crc, data) VALUES (?, ?, ?)');
    this.ranks = new PidRankWriter(
      this.vectorChunks,
      (chunk, crc, data) => {
        this.blocks.flush();
        insertRanks.run(chunk, crc, data);
      },
      (chunk, crc, data) => {
        this.blocks.flush();
        insertOrder.run(chunk, crc, data);
      },
    );
    this.db.exec('BEGIN');
  }

  /**
   * Appends one record; records come state by state (ascending), and within a state in ascending
   * PID order with unique PIDs, or in any order with `rank`, the PID's rank in the state (0 = lowest).
   */
  append(values: RecordValues, rank?: number): void {
    this.appendWithJson(values, JSON.stringify(values), rank);
  }

  /**
   * append() for a caller that already has the record's text, `json` = JSON.stringify(values)
   * exactly (the import serialises each row once, on its reading thread): saves a second stringify.
   */
  appendWithJson(values: RecordValues, json: string, rank?: number): void {
    if (!this.columns) {
      if (this.count > 0) throw new Error('Records were appended without their values: their vectors go to finish().');
      this.columns = this.newColumnSet();
    }
    this.appendText(values[STATE_INDEX] as string, values[PID_INDEX] as string, json, (i) => values[i], rank);
    this.columns.push(values);
  }

  /**
   * A ColumnSet for the vectors of records appended by text, kept in a spill beside the file
   * (vectorSpill.ts) and removed with it: pass its finished() to finish().
   */
  newColumnSet(): ColumnSet {
    if (this.spill) throw new Error('This writer already has a ColumnSet.');
    this.spill = new VectorSpill(`${this.tempPath}-vectors`);
    return new ColumnSet(this.dictionaryLimit, this.spill);
  }

  /**
   * Appends one record by its text: its vectors are built elsewhere and given to finish().
   * `pid` null: the caller has sorted the records itself (the order is then checked by state only).
   * `value`: the record's values of the fields the writer reads besides the text (HHID, the list
   * keys' sources; appendBytes takes what it works out from them instead). `rank`: as for append(); the writer
   * checks that a state's ranks are 0..count-1 each once, not that they follow the PIDs (that would
   * hold every PID of a state in memory): that is the caller's word, and the generator's tests'.
   */
  appendText(state: string, pid: string | null, json: string, value: FieldValue, rank?: number): void {
    this.place(state, pid, rank);
    const hhid = value(HHID_INDEX);
    if (typeof hhid !== 'string') throw new Error('A record without an HHID string was appended.');
    this.households.add(state, hhid, this.count);
    this.listKeys.add(value);
    this.text.addString(json);
    this.added();
  }

  /**
   * appendText() for a record given as its UTF-8 text and what the writer would have read from it
   * (recordExtras.ts), with its PID rank: the import's write phase, which makes no string of it.
   */
  appendBytes(record: RecordBytes): void {
    this.place(record.state, null, record.rank);
    this.households.addFingerprinted(record.state, record.hhidHash, record.extras, record.extrasAt, this.count);
    this.listKeys.addStored(record.extras, record.extrasAt + LIST_KEYS_AT);
    this.text.addBytes(record.bytes, record.start, record.end);
    this.added();
  }

  /** The order check, state ranges and PID rank of the record about to be added. */
  private place(state: string, pid: string | null, rank: number | undefined): void {
    const ranked = rank !== undefined;
    if (this.ranked !== undefined && this.ranked !== ranked)
      throw new Error('Records were appended with and without PID ranks: all or none have one.');
    this.ranked = ranked;
    const newState = this.next(state, ranked ? null : pid, 1);
    if (ranked) this.ranks.add(rank, newState);
  }

  /** Counts the record just added; a full block goes to be compressed, a full batch is committed. */
  private added(): void {
    this.count++;
    if (this.text.count === RECORDS_PER_BLOCK) this.writeBlock();
    if (++this.pending >= BATCH) {
      // Blocks still being compressed go into the next transaction: where a transaction ends changes
      // nothing in the file (no journal, nothing freed), only the order of inserts does.
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
      if (++this.commits % COMMITS_A_FLUSH === 0) this.sync.flush();
    }
  }

  /** Hands the block being filled on (blockEncoder.ts compresses and inserts it). */
  private writeBlock(): void {
    const block = (this.count - this.text.count) / RECORDS_PER_BLOCK;
    this.blocks.add(block, this.text.count, this.text.bytes());
    this.text.clear();
  }

  /** Order check and state ranges for `count` records of `state` (pid: the first's, when known); whether a state begins. */
  private next(state: string, pid: string | null, count: number): boolean {
    if (state < this.lastState || (pid !== null && state === this.lastState && pid <= this.lastPid))
      throw new Error(`Records must arrive in ascending (STATE, PID) order: ${state} ${pid ?? ''} after ${this.lastState} ${this.lastPid}`);
    const begins = state !== this.lastState;
    if (begins) this.stateRanges.push({ state, first: this.count, count: 0 });
    this.stateRanges[this.stateRanges.length - 1]!.count += count;
    this.lastState = state;
    this.lastPid = pid ?? this.lastPid;
    return begins;
  }

  /**
   * Writes the vectors and state ranges, syncs, and renames the file over the target. `columns`:
   * the vectors of records appended by text (every filterable field's, over every position), built
   * or already encoded for this writer's chunks (encodedColumn.ts), taken one at a time: a generator
   * that makes each when asked keeps one in memory at once.
   */
  finish(columns?: Iterable<BuiltColumn | EncodedColumn>): { records: number; path: string } {
    if (columns && this.columns) throw new Error('finish() was given vectors for records that came with their values.');
    if (this.text.count > 0) this.writeBlock();
    this.blocks.flush();
    this.blocks.close();
    this.listKeys.finish();
    if (this.ranked) this.ranks.finish();
    this.compressor.close();
    const built = columns ?? this.columns?.finished() ?? new ColumnSet(this.dictionaryLimit).finish();
    this.columns = undefined;
    const putColumn = this.db.prepare('INSERT INTO columns (name, encoding, kind, length, dict, crc) VALUES (?, ?, ?, ?, ?, ?)');
    const putChunk = this.db.prepare('INSERT INTO vector_chunks (name, chunk, crc, data) VALUES (?, ?, ?, ?)');
    const fields = new Set<number>();
    for (const given of built) {
      const length = 'data' in given ? given.data.length : given.length;
      if (length !== this.count || fields.has(given.field) || !FIELDS[given.field])
        throw new Error(`The vector of ${FIELDS[given.field]?.name} does not fit: ${length} values for ${this.count} records.`);
      const c = 'data' in given ? encodeColumn(given, this.vectorChunks) : given;
      if (c.chunkSize !== this.vectorChunks.size)
        throw new Error(`The vector of ${FIELDS[c.field]!.name} was encoded for chunks of another size.`);
      fields.add(c.field);
      const name = FIELDS[c.field]!.name;
      putColumn.run(name, c.encoding, c.kind, c.length, c.dict, c.crc);
      let chunk = 0;
      for (const { data, crc } of c.chunks) putChunk.run(name, chunk++, crc, data);
      if (chunk !== this.vectorChunks.count(c.length)) throw new Error(`The vector of ${name} came with ${chunk} chunks.`);
    }
    // The reader takes a missing vector for damage (LATITUDE and LONGITUDE included: `near` reads them).
    if (FIELDS.some((_, i) => !fields.has(i))) throw new Error('Vectors are missing: every field needs one.');
    const putState = this.db.prepare('INSERT INTO states (state, first, count) VALUES (?, ?, ?)');
    for (const r of this.stateRanges) putState.run(r.state, r.first, r.count);
    const putMeta = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    const meta: Record<string, string> = {
      ...this.metadata,
      format_version: DATASET_FORMAT_VERSION,
      records: String(this.count),
      block_records: String(RECORDS_PER_BLOCK),
      record_level: String(this.recordLevel),
      vector_chunk: String(this.vectorChunks.size),
      created_at: new Date().toISOString(),
      [HHID_COLLISIONS_KEY]: JSON.stringify(this.households.collisions()),
      [HHID_SPLITS_KEY]: JSON.stringify(this.households.splits()),
      [LIST_KEYS_KEY]: listKeysMeta(),
      [RECORD_ORDER_KEY]: this.ranked ? RANKED_ORDER : PID_ORDER,
      ...(this.ranked ? { [PID_ORDER_KEY]: STORED_PID_ORDER } : {}),
    };
    meta.checksum = tablesChecksum(meta, this.stateRanges);
    for (const [k, v] of Object.entries(meta)) putMeta.run(k, v);
    this.db.exec('COMMIT');
    this.db.close();
    this.sync.release();
    this.done = true;
    this.spill?.remove();
    publishFile(this.tempPath, this.targetPath);
    return { records: this.count, path: this.targetPath };
  }

  /** Drops the unfinished file; the target is untouched. */
  abort(): void {
    if (this.done) return;
    this.done = true;
    this.blocks.close();
    this.compressor.close();
    try {
      this.db.close();
    } finally {
      this.sync.release();
      rmSync(this.tempPath, { force: true });
      this.spill?.remove();
    }
  }
}
