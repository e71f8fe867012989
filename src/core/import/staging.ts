// The import's scratch space for rows that do not arrive in (STATE, PID) order: the dataset writer
// needs ascending (STATE, PID) and one record per PID, so every accepted row waits here until every
// file is read; then the duplicates are dropped (the row read last wins) and the records go to the
// dataset in order.
//
// The record texts go to a flat file beside the target, appended as they arrive, with no index
// to keep up (~1 µs a row, where a SQLite table with a (STATE, PID) index cost ~10 µs of the thread
// that also receives the rows). Rows are grouped on the way into buckets, one per STATE and first
// hex digit of the PID, each gathered in memory and written as a chunk when full: in (STATE, PID)
// order the buckets come one after the other, so writing the dataset reads the file one bucket at
// a time (a few large reads, not one read a record, which cost ~5 µs each). What stays in memory
// is ~36 bytes a row: where its text is, and its key (STATE, PID) packed in five 32-bit words for
// the sort. The file is temporary (deleted when the import ends, however it ends) and never
// synced: a crash leaves it to the next import's clean-up (leftovers.ts).
//
// Rows come from one or more readers (reading threads, each over a contiguous share of the input);
// each reader's rows are numbered in the order they arrive, and all rows ("arrivals") by reader,
// then by that number: reader 0's rows come first in the input, so a larger arrival number is
// always a later row.
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { hex8, pidFingerprint, repeats } from './pidFingerprints';
import { KEY_LENGTH } from './readRows';

/** Words of a key: STATE's two character codes, then the PID's 128 bits as four words. */
const KEY_WORDS = 5;
const NEWLINE = 10;
/** A bucket's rows are gathered up to this many bytes before they are written as one chunk. */
const CHUNK_BYTES = 32 * 1024;

/** Rows a block of ReaderRows holds: 2^BLOCK_BITS. */
const BLOCK_BITS = 16;
const BLOCK = 1 << BLOCK_BITS;

/** Where a block's rows are: their bucket, place in it, length, and key. */
interface RowBlock {
  bucket: Uint16Array;
  /** Where each row's text starts among its bucket's bytes (a Float64: a bucket may pass 4 GB). */
  at: Float64Array;
  bytes: Uint32Array;
  keys: Uint32Array;
}

/**
 * One reader's rows, in arrival order, in blocks of BLOCK rows: arrays that doubled as they grew
 * would hold up to twice what the rows need, and three times while one is copied to the next.
 */
class ReaderRows {
  count = 0;
  blocks: RowBlock[] = [];

  /** The block of row `i` (the next row, or one before it). */
  blockOf(i: number): RowBlock {
    const b = i >>> BLOCK_BITS;
    if (b === this.blocks.length)
      this.blocks.push({ bucket: new Uint16Array(BLOCK), at: new Float64Array(BLOCK), bytes: new Uint32Array(BLOCK), keys: new Uint32Array(BLOCK * KEY_WORDS) });
    return this.blocks[b]!;
  }
}

/** The rows of one STATE and first PID digit: their texts one after the other, written in chunks. */
interface Bucket {
  /** Bytes of the bucket so far (written and gathered). */
  size: number;
  /** Where each written chunk is in the file, and its length: [at, length, at, length, ...]. */
  chunks: number[];
  gathered: Buffer | undefined;
  used: number;
}

export class Staging {
  private readonly fd: number;
  private size = 0;
  private readers: ReaderRows[] = [];
  private readonly buckets: Bucket[] = [];
  private readonly bucketOf = new Map<number, number>();
  private batch = Buffer.alloc(1 << 20);
  // After end(): every row by arrival number.
  private bucket = new Uint16Array(0);
  private at = new Float64Array(0);
  private bytes = new Uint32Array(0);
  private keys = new Uint32Array(0);
  private dropped: Uint8Array | undefined;
  private counts: number[] | undefined;
  // The bucket read back last (texts are asked for in (STATE, PID) order: one bucket after another).
  private loaded = -1;
  private loadedBytes = Buffer.alloc(0);
  private closed = false;

  constructor(readonly path: string) {
    rmSync(path, { force: true });
    this.fd = openSync(path, 'w+', 0o600);
  }

  /**
   * Appends a batch of `reader`'s rows: `json` their record texts joined by '\n' (which JSON
   * escapes inside a text), `keys` their keys (readRows.ts: STATE then PID, KEY_LENGTH each).
   */
  add(reader: number, keys: string, json: string, count: number): void {
    if (count === 0) return;
    const rows = (this.readers[reader] ??= new ReaderRows());
    const length = Buffer.byteLength(json);
    if (length > this.batch.length) this.batch = Buffer.alloc(Math.max(length, this.batch.length * 2));
    const batch = this.batch;
    batch.write(json, 0, length, 'utf8');
    let start = 0;
    for (let k = 0, i = rows.count; k < count; k++, i++) {
      const end = k === count - 1 ? length : batch.indexOf(NEWLINE, start);
      if (end < 0) throw new Error(`A staged batch holds fewer than ${count} records.`);
      const key = k * KEY_LENGTH;
      const block = rows.blockOf(i);
      const r = i & (BLOCK - 1);
      const w = r * KEY_WORDS;
      block.keys[w] = (keys.charCodeAt(key) << 8) | keys.charCodeAt(key + 1);
      for (let j = 1; j < KEY_WORDS; j++) block.keys[w + j] = hex8(keys, key + 2 + 8 * (j - 1));
      const b = this.bucketFor(block.keys[w]! * 16 + (block.keys[w + 1]! >>> 28));
      block.bucket[r] = b;
      block.at[r] = this.buckets[b]!.size;
      block.bytes[r] = end - start;
      this.gather(b, batch, start, end);
      start = end + 1;
    }
    rows.count += count;
  }

  private bucketFor(id: number): number {
    let b = this.bucketOf.get(id);
    if (b === undefined) {
      b = this.buckets.length;
      this.bucketOf.set(id, b);
      this.buckets.push({ size: 0, chunks: [], gathered: undefined, used: 0 });
    }
    return b;
  }

  private gather(b: number, source: Buffer, start: number, end: number): void {
    const bucket = this.buckets[b]!;
    const length = end - start;
    if (bucket.used + length > CHUNK_BYTES) this.writeChunk(bucket);
    if (length > CHUNK_BYTES) this.writeBytes(bucket, source, start, end);
    else {
      bucket.gathered ??= Buffer.allocUnsafe(CHUNK_BYTES);
      source.copy(bucket.gathered, bucket.used, start, end);
      bucket.used += length;
    }
    bucket.size += length;
  }

  private writeChunk(bucket: Bucket): void {
    if (bucket.used === 0) return;
    this.writeBytes(bucket, bucket.gathered!, 0, bucket.used);
    bucket.used = 0;
  }

  private writeBytes(bucket: Bucket, source: Buffer, start: number, end: number): void {
    const length = end - start;
    for (let written = 0; written < length; ) written += writeSync(this.fd, source, start + written, length - written, this.size + written);
    bucket.chunks.push(this.size, length);
    this.size += length;
  }

  /** Rows each reader gave, in reader order (their arrival numbers follow one another). */
  get readerCounts(): number[] {
    return this.counts ?? Array.from(this.readers, (r) => r?.count ?? 0);
  }

  /** Ends the input: every bucket written out, every row numbered by arrival, over the readers one after the other. */
  private end(): void {
    for (const bucket of this.buckets) {
      this.writeChunk(bucket);
      bucket.gathered = undefined;
    }
    this.counts = this.readerCounts;
    const rows = this.readers.filter((r) => r !== undefined);
    const total = rows.reduce((sum, r) => sum + r.count, 0);
    this.bucket = new Uint16Array(total);
    this.at = new Float64Array(total);
    this.bytes = new Uint32Array(total);
    this.keys = new Uint32Array(total * KEY_WORDS);
    let n = 0;
    for (const r of rows) {
      for (const [k, block] of r.blocks.entries()) {
        const length = Math.min(BLOCK, r.count - k * BLOCK);
        this.bucket.set(block.bucket.subarray(0, length), n);
        this.at.set(block.at.subarray(0, length), n);
        this.bytes.set(block.bytes.subarray(0, length), n);
        this.keys.set(block.keys.subarray(0, length * KEY_WORDS), n * KEY_WORDS);
        n += length;
      }
      r.blocks = []; // let go as soon as copied
    }
    this.readers = [];
  }

  /**
   * Ends the input and drops every row whose PID a later row also has. Returns how many rows were
   * dropped (the summary's `replaced`) and how many remain (the dataset's records).
   */
  dedupe(): { replaced: number; records: number } {
    this.end();
    const total = this.bytes.length;
    const keys = this.keys;
    // Most imports repeat no PID: sorted fingerprints say so at a fraction of the cost of sorting
    // the rows by PID, which is done only when two of them are equal (pidFingerprints.ts).
    const fingerprints = new Float64Array(total);
    for (let i = 0, w = 0; i < total; i++, w += KEY_WORDS) fingerprints[i] = pidFingerprint(keys[w + 1]!, keys[w + 2]!, keys[w + 3]!, keys[w + 4]!);
    if (!repeats(fingerprints)) return { replaced: 0, records: total };
    // By PID, then arrival: the last of each run of one PID is the row that stays.
    const byPid = sortArrivals(Uint32Array.from({ length: total }, (_, i) => i), keys, 1);
    const dropped = (this.dropped = new Uint8Array(total));
    let replaced = 0;
    for (let i = 0; i + 1 < total; i++) {
      const a = byPid[i]! * KEY_WORDS;
      const b = byPid[i + 1]! * KEY_WORDS;
      if (keys[a + 1] === keys[b + 1] && keys[a + 2] === keys[b + 2] && keys[a + 3] === keys[b + 3] && keys[a + 4] === keys[b + 4]) {
        dropped[byPid[i]!] = 1;
        replaced++;
      }
    }
    return { replaced, records: total - replaced };
  }

  /** After dedupe(): the arrival number of the record at each position in (STATE, PID) order. */
  order(): Uint32Array {
    const dropped = this.dropped;
    const kept = new Uint32Array(this.bytes.length - (dropped ? dropped.reduce((sum, d) => sum + d, 0) : 0));
    for (let i = 0, n = 0; i < this.bytes.length; i++) if (!dropped?.[i]) kept[n++] = i;
    return sortArrivals(kept, this.keys, 0);
  }

  stateOf(arrival: number): string {
    const word = this.keys[arrival * KEY_WORDS]!;
    return String.fromCharCode(word >>> 8, word & 0xff);
  }

  /** The record text of an arrival (asked for in (STATE, PID) order, one bucket is read at a time). */
  text(arrival: number): string {
    const b = this.bucket[arrival]!;
    if (b !== this.loaded) this.load(b);
    const at = this.at[arrival]!;
    return this.loadedBytes.toString('utf8', at, at + this.bytes[arrival]!);
  }

  private load(b: number): void {
    const bucket = this.buckets[b]!;
    this.loaded = -1;
    if (this.loadedBytes.length < bucket.size) this.loadedBytes = Buffer.allocUnsafe(Math.max(bucket.size, this.loadedBytes.length * 2));
    let into = 0;
    for (let c = 0; c < bucket.chunks.length; c += 2) {
      const at = bucket.chunks[c]!;
      const length = bucket.chunks[c + 1]!;
      for (let read = 0; read < length; ) {
        const n = readSync(this.fd, this.loadedBytes, into + read, length - read, at + read);
        if (n === 0) throw new Error('The staging file is shorter than what was written to it.');
        read += n;
      }
      into += length;
    }
    this.loaded = b;
  }

  /** One field's values (FIELDS index) of the records at `order` (see needsRebuild). */
  *fieldValues(field: number, order: ArrayLike<number>): Generator<string> {
    for (let i = 0; i < order.length; i++) yield (JSON.parse(this.text(order[i]!)) as string[])[field]!;
  }

  /** Closes the file and deletes it in the background; the promise says when it is gone. */
  async disposeInBackground(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    await rm(this.path, { force: true });
  }

  /** Closes and deletes the file; safe to call more than once. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } finally {
      rmSync(this.path, { force: true });
    }
  }
}

/**
 * Sorts arrival numbers by their keys' words from `fromWord` on (0: STATE then PID; 1: PID alone),
 * then by arrival. Words are unsigned and compare as the hex digits (and state letters) they hold.
 */
function sortArrivals(arrivals: Uint32Array, keys: Uint32Array, fromWord: number): Uint32Array {
  return arrivals.sort((a, b) => {
    const x = a * KEY_WORDS;
    const y = b * KEY_WORDS;
    for (let j = fromWord; j < KEY_WORDS; j++) {
      const d = keys[x + j]! - keys[y + j]!;
      if (d !== 0) return d;
    }
    return a - b;
  });
}
