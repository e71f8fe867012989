// The records: compressed blocks of RECORDS_PER_BLOCK consecutive positions (blockCodec.ts),
// each checked against its checksum when read, all decompressed by one kept zstd context. A block
// is decompressed into a slot of reused shared memory (blockSlots.ts) and kept there in an LRU, so
// paging through an audience, a search and the preview re-read what they just read for the cost of
// a lookup; a read that needs more blocks than that takes them a group at a time, so its memory
// stays bounded whatever the number of positions (export).
import type { Db } from '../../sqlite';
import { checkedBlockSize, recordBlockOf, type RecordBlock, type StoredBlockId } from '../codec/blockCodec';
import { BlockSlots, SLOT_BYTES } from './blockSlots';
import { datasetDamaged } from '../format/damage';
import { BY_READER, BY_WORKER, inflateJob, readShared, sizeOf, statusOf, type BlockInflater } from './inflateJob';
import type { PieceFetch } from './pieceFetch';
import { BLOCK_SQL, blockFetch, type PieceSource } from './pieceFetch';
import { PREVIEW_CHARS, type RecordSource } from './recordSource';
import { ZstdDecompressor } from '../codec/zstdContext';
import { StoredBlockRows, type StoredBlock } from './storedBlockRows';

/** Blocks kept (48 MB of slots: 768 blocks, of 16 or 32 records as the file has them). */
const SLOTS = 768;
/** Blocks one read fetches and holds at once (fewer than the slots: a read's blocks are never evicted during it). */
const GROUP = 128;
/**
 * Blocks the verify checks between two chances to yield (~0.7 ms here: a block's checksum, without
 * decompressing it). The background verify waits at each for requests to finish; when each block was
 * decompressed as well, a step of 128 blocks took 7-15 ms and kept a core from them that long.
 */
const VERIFY_STEP = 128;
// UTF-8 bytes of a record the preview decodes: at least PREVIEW_CHARS characters.
const PREVIEW_BYTES = PREVIEW_CHARS;
/**
 * Blocks one read needs before they are shared with the scan worker: handing a job over and waking
 * on its answer costs ~0.1-0.2 ms here, about one block's fetch and decompression.
 */
const SHARE_FROM = 8;

/** What a slot's records hold before its first block. */
const EMPTY = Buffer.alloc(0);

/** A decompressed block, in slot `slot` of the slots' memory as it was when `generation` was current (-1: a buffer of its own). */
interface Decoded {
  block: number;
  records: RecordBlock;
  slot: number;
  generation: number;
}

export class BlockRecords implements RecordSource {
  private readonly cache = new Map<number, Decoded>();
  private readonly slots: BlockSlots;
  /**
   * Each slot's Decoded, made at its first use and rewritten for each block the slot takes, with its
   * records' starts in `slotStarts` (perBlock + 1 a slot). A page of 100 records at depth reads ~100
   * blocks, and a new Decoded, RecordBlock and starts array each (~0.3 KB) lived in the cache long
   * enough to survive a scavenge: at 30M under steady paging most of the ~1.1 MB the main thread's
   * scavenges copied every half second were these (docs/performance.md, "30 November, midday").
   */
  private readonly slotDecoded: Array<Decoded | undefined> = [];
  private readonly slotStarts: Uint32Array;
  /** Distinct blocks a read takes at a time. */
  private readonly group: number;
  private readonly rows: StoredBlockRows;
  private readonly decompressor = new ZstdDecompressor();
  /** The second core, when the engine has one running (query/twoCoreScan.ts), and the memory its jobs share. */
  private inflater: BlockInflater | null = null;
  /** What the worker needs to read this file's blocks itself, and this thread's own fetch of one. */
  private readonly source: PieceSource;
  private readonly fetchOne: PieceFetch;
  /** Reads whose blocks the worker helped decompress (tests read it). */
  sharedReads = 0;
  /** Tests: a shared read waits for the worker's first claim before claiming any, so the worker surely takes part. */
  workerFirst = false;

  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly records: number,
    private readonly perBlock: number,
    /** What identifies the file's contents (pieceFetch.ts datasetIdentity): the worker checks it is reading the same file. */
    identity: string,
    /** Blocks kept (tests keep a few, to see them evicted and their slots reused). */
    private readonly kept = SLOTS,
  ) {
    this.source = { kind: 'blocks', path, identity, records, perBlock };
    this.fetchOne = blockFetch(db.prepare(BLOCK_SQL), path, records, perBlock);
    this.rows = new StoredBlockRows(db);
    this.slots = new BlockSlots(kept, Math.ceil(records / perBlock));
    this.slotStarts = new Uint32Array(kept * (perBlock + 1));
    // A read's own blocks (those it found and those it adds) then always fit: none is evicted during it.
    this.group = Math.max(1, Math.min(GROUP, Math.floor(kept / 2)));
  }

  /** Writes ahead the memory of the first `count` slots blocks are decompressed into (BlockSlots.writeAhead). */
  writeAheadSlots(count: number): void {
    this.slots.writeAhead(count);
  }

  /** Writes ahead the next `count` slots not yet written; false once all are (BlockSlots.writeAheadMore). */
  writeAheadMoreSlots(count: number): boolean {
    return this.slots.writeAheadMore(count);
  }

  /** The slots' memory not yet written ahead, for a thread to write (BlockSlots.unwritten). */
  unwrittenSlots(): ReturnType<BlockSlots['unwritten']> {
    return this.slots.unwritten();
  }

  /** Takes note that a thread wrote what unwrittenSlots() gave (BlockSlots.writtenElsewhere). */
  slotsWrittenElsewhere(generation: number): void {
    this.slots.writtenElsewhere(generation);
  }

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
    // Copies: a slot is reused once its block is evicted.
    this.each(positions, (k, b, i) => (out[k] = Buffer.from(b.bytes.subarray(b.starts[i]!, b.starts[i + 1]! - 1))));
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

  /**
   * Checks every block's checksum and the size its frame states, not its decompressed text: the
   * checksum tells whether the bytes are the ones the writer stored, which is what damage changes, and
   * every read decompresses and checks what it reads. Decompressing every block was over half the
   * verify's time (docs/dataset-format.md, "Damage").
   */
  *verifySteps(): Generator<void, void, void> {
    const blocks = Math.ceil(this.records / this.perBlock);
    const stmt = this.db.prepare('SELECT block, crc, data FROM record_blocks WHERE block >= ? AND block < ? ORDER BY block');
    for (let from = 0; from < blocks; from += VERIFY_STEP) {
      const to = Math.min(blocks, from + VERIFY_STEP);
      const rows = stmt.all(from, to) as StoredBlock[];
      for (let b = from, r = 0; b < to; b++, r++) {
        const row = rows[r];
        if (!row || row.block !== b) throw datasetDamaged(this.path, `the block of records ${b * this.perBlock} is missing`);
        checkedBlockSize(this.path, this.idOf(row.block, this.countOf(row)), row.crc, row.data);
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
      // The next group of distinct blocks the positions need, and where their positions end.
      const wanted: number[] = [];
      let end = k;
      while (end < n) {
        const p = positions[end]!;
        if (!(p >= 0 && p < this.records)) throw new RangeError(`Position ${p} is outside the dataset.`);
        const b = Math.floor(p / per);
        if (wanted[wanted.length - 1] !== b) {
          if (wanted.length === this.group) break;
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
        out.set(b, hit.records);
      } else missing.push(b);
    }
    if (missing.length === 0) return out;
    // Positions in PID order of a file stored in household order ask for blocks in any order, and a block twice.
    const ascending = [...new Set(missing)].sort((a, b) => a - b);
    // Scattered blocks only (a page of records in PID order): a run of neighbours (an export, a
    // state read in order) reads every record of a block, and decompression is a small part of its time.
    const scattered = ascending[ascending.length - 1]! - ascending[0]! + 1 > 2 * ascending.length;
    const decoded =
      this.inflater && scattered && ascending.length >= SHARE_FROM
        ? this.readOnTwoCores(ascending, this.inflater)
        : this.decodeAll(this.rows.of(ascending));
    for (const d of decoded) {
      out.set(d.block, d.records);
      this.remember(d);
    }
    for (const b of missing) if (!out.has(b)) throw this.blockMissing(b);
    return out;
  }

  private blockMissing(b: number): Error {
    return datasetDamaged(this.path, `the block of records ${b * this.perBlock} to ${(b + 1) * this.perBlock - 1} is missing`);
  }

  /** A stored block checked and decompressed here, into a free slot when there is one. */
  private decode(row: StoredBlock): Decoded {
    return this.decodeFrame(row.block, row.data, checkedBlockSize(this.path, this.idOf(row.block, this.countOf(row)), row.crc, row.data));
  }

  /** A checked block's frame, of `size` bytes decompressed, decompressed here into a free slot when there is one, and cut into its records. */
  private decodeFrame(block: number, frame: Uint8Array, size: number): Decoded {
    const generation = this.slots.generation;
    const slot = this.slotFor(size);
    const bytes = slot >= 0 ? this.slots.view(slot, size) : Buffer.allocUnsafe(size);
    try {
      this.decompressor.decompressInto(frame, bytes);
    } catch {
      this.release(slot, generation);
      const count = Math.min(this.perBlock, this.records - block * this.perBlock);
      throw datasetDamaged(this.path, `records ${block * this.perBlock} to ${block * this.perBlock + count - 1} do not decompress`);
    }
    return this.decoded(block, slot, bytes, generation);
  }

  /** A block's decompressed bytes cut into its records; a block that does not cut right is damage (its slot freed). */
  private decoded(block: number, slot: number, bytes: Buffer, generation: number): Decoded {
    try {
      const count = Math.min(this.perBlock, this.records - block * this.perBlock);
      const id = this.idOf(block, count);
      if (slot < 0 || generation !== this.slots.generation)
        return { block, records: recordBlockOf(this.path, id, bytes), slot, generation };
      const kept = (this.slotDecoded[slot] ??= this.slotObjects(slot));
      recordBlockOf(this.path, id, bytes, kept.records);
      kept.block = block;
      kept.generation = generation;
      return kept;
    } catch (e) {
      this.release(slot, generation);
      throw e;
    }
  }

  /** A slot's Decoded, to be rewritten for each block it holds; its starts are the slot's part of `slotStarts`. */
  private slotObjects(slot: number): Decoded {
    const per = this.perBlock + 1;
    const starts = this.slotStarts.subarray(slot * per, (slot + 1) * per);
    return { block: -1, records: { bytes: EMPTY, starts }, slot, generation: -1 };
  }

  private idOf(block: number, count: number): StoredBlockId {
    return { block, count, perBlock: this.perBlock };
  }

  /** The records a stored row must hold; a row that is not a block of this file is damage. */
  private countOf(row: StoredBlock): number {
    const count = Math.min(this.perBlock, this.records - row.block * this.perBlock);
    if (!(count > 0) || !(row.data instanceof Uint8Array) || typeof row.crc !== 'number')
      throw datasetDamaged(this.path, `the block numbered ${row.block} is not one of this file's`);
    return count;
  }

  /**
   * The blocks (ascending) read and decoded with the worker (inflateJob.ts): both threads fetch,
   * check and decompress blocks, each straight into the slot it was given. A block the worker did
   * not finish, or found damaged, or that outgrew its slot, is read again here, which reports damage
   * as a read on one core does.
   */
  private readOnTwoCores(blocks: readonly number[], inflater: BlockInflater): Decoded[] {
    const generation = this.slots.generation;
    const memory = this.slots.shared;
    const slots = blocks.map(() => this.slotFor(SLOT_BYTES));
    const job = inflateJob(
      this.source,
      blocks,
      memory,
      slots.map((slot) => ({ from: Math.max(0, slot) * SLOT_BYTES, room: slot >= 0 ? SLOT_BYTES : 0 })),
    );
    const options = { workerFirst: this.workerFirst, leave: () => this.leaveSlots() };
    if (!readShared(inflater, job, this.fetchOne, this.decompressor, options)) {
      slots.forEach((slot) => this.release(slot, generation));
      return this.decodeAll(this.rows.of(blocks));
    }
    let workerDid = false;
    const decoded: Decoded[] = [];
    try {
      blocks.forEach((block, i) => {
        const slot = slots[i]!;
        const status = statusOf(job, i);
        workerDid ||= status === BY_WORKER;
        // From here the block's slot is its Decoded's, or freed by whatever fails (decoded(), decodeFrame()).
        slots[i] = -1;
        if (status === BY_READER || status === BY_WORKER) {
          decoded.push(this.decoded(block, slot, Buffer.from(memory, slot * SLOT_BYTES, sizeOf(job, i)), generation));
          return;
        }
        // Unfinished, damaged or too large for its slot: read again here (which names any damage).
        this.release(slot, generation);
        const { frame, size } = this.fetchOne(block);
        decoded.push(this.decodeFrame(block, frame, size));
      });
    } catch (e) {
      // Damage: the slots of this read's blocks, decoded or not, are free again.
      for (const d of decoded) this.release(d.slot, d.generation);
      for (const slot of slots) this.release(slot, generation);
      throw e;
    }
    if (workerDid) this.sharedReads++;
    return decoded;
  }

  /** decode() of each row; when one is damaged, the slots of those decoded before it are free again. */
  private decodeAll(rows: readonly StoredBlock[]): Decoded[] {
    const decoded: Decoded[] = [];
    try {
      for (const row of rows) decoded.push(this.decode(row));
      return decoded;
    } catch (e) {
      for (const d of decoded) this.release(d.slot, d.generation);
      throw e;
    }
  }

  /** A free slot for a block of `size` bytes, the least recently used block evicted for it if need be; -1 if it does not fit one. */
  private slotFor(size: number): number {
    if (size > SLOT_BYTES) return -1;
    let slot = this.slots.take();
    for (const [b, evicted] of this.cache) {
      if (slot >= 0) break;
      this.cache.delete(b);
      this.release(evicted.slot, evicted.generation);
      slot = this.slots.take();
    }
    return slot;
  }

  /** Frees a slot of the slots' current memory. */
  private release(slot: number, generation: number): void {
    if (slot >= 0 && generation === this.slots.generation) this.slots.give(slot);
  }

  /** New memory for the slots, and no cache: the worker may still write into the old. */
  private leaveSlots(): void {
    this.cache.clear();
    this.slots.reset();
  }

  /** Frees the kept zstd context and the cached blocks (the dataset closed). */
  close(): void {
    this.decompressor.close();
    this.clearCache();
  }

  /** Drops the cached blocks (close(); tests that must read blocks again). */
  clearCache(): void {
    this.cache.clear();
    this.slots.freeAll();
  }

  /** Keeps a decoded block, unless its slot's memory was abandoned meanwhile; at most `kept` blocks. */
  private remember(d: Decoded): void {
    if (d.slot >= 0 && d.generation !== this.slots.generation) return;
    this.cache.set(d.block, d);
    for (const [b, evicted] of this.cache) {
      if (this.cache.size <= this.kept) break;
      this.cache.delete(b);
      this.release(evicted.slot, evicted.generation);
    }
  }
}
