// Format 4's records: compressed blocks of RECORDS_PER_BLOCK consecutive positions (blockCodec.ts),
// each checked against its checksum when read, all decompressed by one kept zstd context (each into
// a buffer of its own size). Decompressed blocks are kept in an LRU with a byte budget, so paging
// through an audience, a search and the preview re-read what they just read for the cost of a
// lookup; a read that needs more blocks than that takes them a group at a time, so its memory stays
// bounded whatever the number of positions (export).
import type { Db, Statement } from '../sqlite';
import { checkedBlockSize, decodeRecordBlock, recordBlockOf, RECORDS_PER_BLOCK, type RecordBlock } from './blockCodec';
import { datasetDamaged } from './damage';
import {
  awaitFirstClaim,
  awaitInflated,
  BY_READER,
  BY_WORKER,
  inflateClaimed,
  InflateSpace,
  statusOf,
  workerTarget,
  type BlockInflater,
} from './inflateJob';
import { PREVIEW_CHARS, type RecordSource } from './recordSource';
import { ZstdDecompressor } from './zstdContext';

/** Decompressed bytes kept for recent blocks (about 750 blocks of 32 records). */
const CACHE_BYTES = 32 * 1024 * 1024;
/** Blocks one read fetches and holds at once: the bound on a read's own memory (~2.7 MB). */
const GROUP = 64;
// UTF-8 bytes of a record the preview decodes: at least PREVIEW_CHARS characters.
const PREVIEW_BYTES = PREVIEW_CHARS;
/**
 * Blocks one read needs before they are shared with the scan worker: handing a job over and waking
 * on its answer costs ~0.1-0.2 ms here, about three blocks' decompression.
 */
const SHARE_FROM = 8;
/** How long the reading thread waits for blocks the worker claimed before it decompresses them itself. */
const WORKER_PATIENCE_MS = 2000;

interface StoredBlock {
  block: number;
  crc: number;
  data: Uint8Array;
}

export class BlockRecords implements RecordSource {
  private readonly cache = new Map<number, RecordBlock>();
  private cachedBytes = 0;
  private readonly statements = new Map<number | 'range', Statement>();
  private readonly decompressor = new ZstdDecompressor();
  /** The second core, when the engine has one running (query/twoCoreScan.ts), and the memory its jobs share. */
  private inflater: BlockInflater | null = null;
  private readonly space = new InflateSpace();
  /** Reads whose blocks the worker helped decompress (tests read it). */
  sharedReads = 0;
  /** Tests: a shared read waits for the worker's first claim before claiming any, so the worker surely takes part. */
  workerFirst = false;

  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly records: number,
    private readonly perBlock = RECORDS_PER_BLOCK,
  ) {}

  /** Lets reads of many blocks share their decompression with `inflater` (null: this thread alone). */
  useInflater(inflater: BlockInflater | null): void {
    this.inflater = inflater;
  }

  texts(positions: ArrayLike<number>): string[] {
    const out = new Array<string>(positions.length);
    this.each(positions, (k, b, i) => (out[k] = b.bytes.toString('utf8', b.starts[i]!, b.starts[i + 1]! - 1)));
    return out;
  }

  bytes(positions: ArrayLike<number>): Uint8Array[] {
    const out = new Array<Uint8Array>(positions.length);
    // Views into the cached block: they keep it alive only as long as the caller holds them.
    this.each(positions, (k, b, i) => (out[k] = b.bytes.subarray(b.starts[i]!, b.starts[i + 1]! - 1)));
    return out;
  }

  starts(positions: ArrayLike<number>): string[] {
    const out = new Array<string>(positions.length);
    this.each(positions, (k, b, i) => {
      const start = b.starts[i]!;
      // A cut inside a multi-byte character decodes to a replacement character at the very end,
      // inside a string the cut leaves open: parseStoredValues then says the text is short.
      out[k] = b.bytes.toString('utf8', start, Math.min(b.starts[i + 1]! - 1, start + PREVIEW_BYTES));
    });
    return out;
  }

  *verifySteps(): Generator<void, void, void> {
    const blocks = Math.ceil(this.records / this.perBlock);
    const stmt = this.db.prepare('SELECT block, crc, data FROM record_blocks WHERE block >= ? AND block < ? ORDER BY block');
    for (let from = 0; from < blocks; from += GROUP) {
      const to = Math.min(blocks, from + GROUP);
      const rows = stmt.all(from, to) as StoredBlock[];
      for (let b = from, r = 0; b < to; b++, r++) {
        const row = rows[r];
        if (!row || row.block !== b) throw datasetDamaged(this.path, `the block of records ${b * this.perBlock} is missing`);
        this.decode(row);
      }
      yield;
    }
  }

  /** Calls `use(k, block, index)` for each position k, its block decompressed and checked, in order. */
  private each(positions: ArrayLike<number>, use: (k: number, block: RecordBlock, index: number) => void): void {
    const n = positions.length;
    const per = this.perBlock;
    let k = 0;
    while (k < n) {
      // The next GROUP distinct blocks the positions need, and where their positions end.
      const wanted: number[] = [];
      let end = k;
      while (end < n) {
        const p = positions[end]!;
        if (!(p >= 0 && p < this.records)) throw new RangeError(`Position ${p} is outside the dataset.`);
        const b = Math.floor(p / per);
        if (wanted[wanted.length - 1] !== b) {
          if (wanted.length === GROUP) break;
          wanted.push(b);
        }
        end++;
      }
      const blocks = this.load(wanted);
      for (; k < end; k++) {
        const p = positions[k]!;
        const b = Math.floor(p / per);
        use(k, blocks.get(b)!, p - b * per);
      }
    }
  }

  /** The given blocks, from the cache or read and checked. */
  private load(wanted: readonly number[]): Map<number, RecordBlock> {
    const out = new Map<number, RecordBlock>();
    const missing: number[] = [];
    for (const b of wanted) {
      const hit = this.cache.get(b);
      if (hit) {
        this.cache.delete(b);
        this.cache.set(b, hit);
        out.set(b, hit);
      } else missing.push(b);
    }
    if (missing.length === 0) return out;
    // Positions in PID order of a file stored in household order ask for blocks in any order, and a block twice.
    const ascending = [...new Set(missing)].sort((a, b) => a - b);
    const rows = this.fetch(ascending);
    // Scattered blocks only (a page of records in PID order): a run of neighbours (an export, a
    // state read in order) reads ~32 records a block, and decompression is a small part of its time.
    const scattered = ascending[ascending.length - 1]! - ascending[0]! + 1 > 2 * ascending.length;
    const decoded =
      this.inflater && scattered && rows.length >= SHARE_FROM
        ? this.decodeOnTwoCores(rows, this.inflater)
        : rows.map((r) => this.decode(r));
    rows.forEach((row, i) => {
      out.set(row.block, decoded[i]!);
      this.remember(row.block, decoded[i]!);
    });
    for (const b of missing)
      if (!out.has(b))
        throw datasetDamaged(this.path, `the block of records ${b * this.perBlock} to ${(b + 1) * this.perBlock - 1} is missing`);
    return out;
  }

  private decode(row: StoredBlock): RecordBlock {
    return decodeRecordBlock(this.path, row.block, this.countOf(row), row.crc, row.data, this.decompressor);
  }

  /** The records a stored row must hold; a row that is not a block of this file is damage. */
  private countOf(row: StoredBlock): number {
    const count = Math.min(this.perBlock, this.records - row.block * this.perBlock);
    if (!(count > 0) || !(row.data instanceof Uint8Array) || typeof row.crc !== 'number')
      throw datasetDamaged(this.path, `the block numbered ${row.block} is not one of this file's`);
    return count;
  }

  /**
   * decode() of every row, the decompression shared with the worker (inflateJob.ts). Checksums are
   * checked here first; a block the worker did not finish, or that did not decompress, is decoded
   * here, which reports damage as a read on one core does.
   */
  private decodeOnTwoCores(rows: StoredBlock[], inflater: BlockInflater): RecordBlock[] {
    const counts = rows.map((r) => this.countOf(r));
    const sizes = rows.map((r, i) => checkedBlockSize(this.path, r.block, counts[i]!, r.crc, r.data));
    const job = this.space.job(
      rows.map((r) => r.data),
      sizes,
    );
    if (!inflater.postInflate(job)) return rows.map((r) => this.decode(r));
    const own: Buffer[] = [];
    if (this.workerFirst) awaitFirstClaim(job, WORKER_PATIENCE_MS);
    inflateClaimed(job, this.decompressor, false, (i) => (own[i] = Buffer.allocUnsafe(sizes[i]!)));
    if (!awaitInflated(job, WORKER_PATIENCE_MS)) this.space.abandon();
    let workerDid = false;
    const decoded = rows.map((row, i) => {
      const status = statusOf(job, i);
      if (status !== BY_READER && status !== BY_WORKER) return this.decode(row);
      workerDid ||= status === BY_WORKER;
      // The worker's block is copied out: a cached block must not keep the job's shared memory alive.
      const bytes = status === BY_READER ? own[i]! : Buffer.from(workerTarget(job, i));
      return recordBlockOf(this.path, row.block, counts[i]!, bytes);
    });
    if (workerDid) this.sharedReads++;
    return decoded;
  }

  /** Frees the kept zstd context and the cached blocks (the dataset closed). */
  close(): void {
    this.decompressor.close();
    this.clearCache();
  }

  /** Drops the cached blocks (close(); tests that must read blocks again). */
  clearCache(): void {
    this.cache.clear();
    this.cachedBytes = 0;
  }

  /**
   * The stored rows of blocks (ascending): one range scan when they lie close together, else an
   * `IN (…)` list padded to a prepared size. Rows that were not asked for are left out.
   */
  private fetch(blocks: readonly number[]): StoredBlock[] {
    const first = blocks[0]!;
    const last = blocks[blocks.length - 1]!;
    if (last - first + 1 <= 2 * blocks.length) {
      const asked = new Set(blocks);
      return (this.statement('range').all(first, last + 1) as StoredBlock[]).filter((r) => asked.has(r.block));
    }
    const size = Math.max(8, 2 ** Math.ceil(Math.log2(blocks.length)));
    const args = new Array<number>(size);
    for (let i = 0; i < size; i++) args[i] = blocks[Math.min(i, blocks.length - 1)]!;
    return this.statement(size).all(...args) as StoredBlock[];
  }

  private statement(size: number | 'range'): Statement {
    let stmt = this.statements.get(size);
    if (!stmt) {
      const where = size === 'range' ? 'block >= ? AND block < ?' : `block IN (${new Array(size).fill('?').join(',')})`;
      stmt = this.db.prepare(`SELECT block, crc, data FROM record_blocks WHERE ${where} ORDER BY block`);
      this.statements.set(size, stmt);
    }
    return stmt;
  }

  private remember(b: number, block: RecordBlock): void {
    this.cache.set(b, block);
    this.cachedBytes += block.bytes.byteLength;
    for (const [key, value] of this.cache) {
      if (this.cachedBytes <= CACHE_BYTES) break;
      this.cache.delete(key);
      this.cachedBytes -= value.bytes.byteLength;
    }
  }
}
