// The scratch file where rows wait until every file is read: appended as they come, grouped into
// buckets (one per STATE and first three digits of ZIP, which come one after the other in that
// order), so that duplicates can be dropped (the row read last wins) and the records read back in
// the file's order a bucket at a time. That order is a state's households by ZIP, a household's
// members together (docs/dataset-format.md, "Record order"): within a ZIP by a hash of ADDRESS,
// then of HHID, then PID. Each record goes with its PID's rank in its state, so PID order is kept
// without being the order of the file. Never synced; deleted when the import ends (tempFiles.ts
// removes a killed import's). Rows are numbered by reader, then by arrival within it: reader 0's
// rows come first in the input, so a larger number is always a later row. The bytes are
// chunkFile.ts's (the texts compressed unless the import has room to spare: stagingForm.ts).
// docs/import.md, "Staged reading" and "Memory".
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { ChunkFile, Stream } from './chunkFile';
import { PidFingerprints } from './pidFingerprints';
import { KEY_LENGTH } from '../read/batch';
import { recordText, type RecordBytes } from '../../dataset/write/recordExtras';
import {
  comparePids,
  compareInFile,
  EXTRAS,
  HEADER_BYTES,
  HEADER_WORDS,
  HHID_HASH,
  HOUSEHOLD,
  KEY,
  KEY_WORDS,
  LENGTH,
  NUMBER,
  READER,
  textStarts,
  writeHeader,
} from './rowHeader';

/** Buckets of a state: one per first three digits of ZIP. */
const ZIP_BUCKETS = 1000;
const NEWLINE = 10;
/** A bucket's texts are gathered up to this many bytes before they are written as one chunk. */
const TEXT_CHUNK_BYTES = 32 * 1024;
/** Its headers, up to this many (about 900 buckets in a national file: ~14 MB of buffers; each chunk is read back three times, so fewer, larger chunks save reads). */
const HEADER_CHUNK_BYTES = 16 * 1024;
/**
 * A bucket's texts are read back whole up to this many bytes; a larger one (a dense ZIP area of a
 * national file: ~2 million records, ~2.5 GB of text) in as many passes over its chunks as it takes
 * to write its records this many bytes at a time, so memory does not grow with the file.
 */
export const BUCKET_TEXT_BYTES = 256 * 2 ** 20;

/** The rows of one STATE and first three digits of ZIP. */
interface Bucket {
  /** STATE's two character codes and the ZIP's first three digits, as one number: buckets sort as their keys do. */
  id: number;
  rows: number;
  headers: Stream;
  texts: Stream;
}

export class Staging {
  private readonly file: ChunkFile;
  private readonly buckets: Bucket[] = [];
  private readonly bucketOf = new Map<number, number>();
  private readonly header = new Uint32Array(HEADER_WORDS);
  private readonly counts: number[] = [];
  private readonly pids = new PidFingerprints();
  private ended = false;
  /** After the input ends: the first arrival number of each reader's rows. */
  private bases: number[] = [];
  /** After dedupe(), when a PID came twice: the arrivals a later row of their PID replaces. */
  private dropped: Uint8Array | undefined;
  private closed = false;
  /**
   * The texts of one pass (passTexts), reused by the next: each record's bytes are copied into the
   * writer's block before the next record is asked for, and a fresh buffer a pass paid its memory's first touch
   * every time (docs/import.md, "Memory touched once").
   */
  private passBuffer = Buffer.alloc(0);

  constructor(
    readonly path: string,
    /** Whether the texts go to the file as zstd frames or as they are (stagingForm.ts decides). */
    private readonly compressTexts = true,
    /** BUCKET_TEXT_BYTES; tests make it small to read buckets back in many passes. */
    private readonly bucketTextBytes = BUCKET_TEXT_BYTES,
  ) {
    this.file = new ChunkFile(path);
  }

  /**
   * Appends a batch of `reader`'s rows: `texts` their record texts in UTF-8 joined by '\n' (which
   * JSON escapes inside a text), `keys` their keys (read/batch.ts, rowKey: KEY_LENGTH each), `extras`
   * their extras for the writer (RECORD_EXTRA_WORDS each). The bytes are copied before it returns.
   */
  add(reader: number, keys: string, texts: Uint8Array, extras: Uint32Array, count: number): void {
    if (this.ended) throw new Error('The staging input has ended.');
    if (count === 0) return;
    while (this.counts.length <= reader) this.counts.push(0);
    const length = texts.byteLength;
    const batch = Buffer.from(texts.buffer, texts.byteOffset, length);
    const header = this.header;
    const headerBytes = new Uint8Array(header.buffer);
    let start = 0;
    for (let k = 0; k < count; k++) {
      const end = k === count - 1 ? length : batch.indexOf(NEWLINE, start);
      if (end < 0) throw new Error(`A staged batch holds fewer than ${count} records.`);
      writeHeader(header, reader, this.counts[reader]!++, keys, k, end - start, extras);
      this.pids.add(keys, k * KEY_LENGTH + 2);
      const bucket = this.bucketFor(header[KEY]! * ZIP_BUCKETS + Math.min(ZIP_BUCKETS - 1, Math.floor(header[HOUSEHOLD]! / 100)));
      bucket.rows++;
      this.file.gather(bucket.headers, headerBytes, 0, HEADER_BYTES);
      this.file.gather(bucket.texts, batch, start, end);
      start = end + 1;
    }
  }

  private bucketFor(id: number): Bucket {
    let b = this.bucketOf.get(id);
    if (b === undefined) {
      b = this.buckets.length;
      this.bucketOf.set(id, b);
      // The headers are mostly random PID words: compressing them would cost more than it saves.
      const headers = new Stream(HEADER_CHUNK_BYTES, false);
      this.buckets.push({ id, rows: 0, headers, texts: new Stream(TEXT_CHUNK_BYTES, this.compressTexts) });
    }
    return this.buckets[b]!;
  }

  /** Bytes of the staging file so far: what the import needs of scratch room. */
  get fileBytes(): number {
    return this.file.bytes;
  }

  /** Rows each reader gave, in reader order (their arrival numbers follow one another). */
  get readerCounts(): number[] {
    return [...this.counts];
  }

  /** Ends the input: every bucket written out, the buckets in (STATE, ZIP digits) order. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const bucket of this.buckets) {
      this.file.end(bucket.headers);
      this.file.end(bucket.texts);
    }
    this.file.writePending();
    this.buckets.sort((a, b) => a.id - b.id);
    let sum = 0;
    this.bases = this.counts.map((n) => ((sum += n), sum - n));
  }

  /**
   * Ends the input and drops every row whose PID a later row also has. Returns how many rows were
   * dropped (the summary's `replaced`) and how many remain (the dataset's records).
   */
  dedupe(): { replaced: number; records: number } {
    this.end();
    const total = this.counts.reduce((sum, n) => sum + n, 0);
    // Most imports repeat no PID: sorted fingerprints say so at a fraction of the cost of sorting
    // every row's PID, which is done only when two of them are equal (pidFingerprints.ts).
    if (!this.pids.mayRepeat()) return { replaced: 0, records: total };
    // Every row's PID and arrival, read back from the headers (the one time all keys are in memory).
    const pids = new Uint32Array(total * 4);
    const arrivals = new Uint32Array(total);
    let n = 0;
    for (const bucket of this.buckets) {
      const headers = this.loadHeaders(bucket);
      for (let h = 0; h < headers.length; h += HEADER_WORDS, n++) {
        arrivals[n] = this.arrivalOf(headers, h);
        pids.set(headers.subarray(h + KEY + 1, h + KEY + KEY_WORDS), n * 4);
      }
    }
    // By PID, then arrival: the last of each run of one PID is the row that stays.
    const byPid = Uint32Array.from({ length: total }, (_, i) => i).sort((a, b) => comparePids(pids, a, b) || arrivals[a]! - arrivals[b]!);
    const dropped = (this.dropped = new Uint8Array(total));
    let replaced = 0;
    for (let i = 0; i + 1 < total; i++) {
      const a = byPid[i]! * 4;
      const b = byPid[i + 1]! * 4;
      if (pids[a] === pids[b] && pids[a + 1] === pids[b + 1] && pids[a + 2] === pids[b + 2] && pids[a + 3] === pids[b + 3]) {
        dropped[arrivals[byPid[i]!]!] = 1;
        replaced++;
      }
    }
    return { replaced, records: total - replaced };
  }

  /** After dedupe(): fills `into` with the arrival number of the record at each position of the file. */
  order(into: Uint32Array): void {
    let p = 0;
    for (const bucket of this.buckets) {
      const headers = this.loadHeaders(bucket);
      for (const h of this.sorted(headers)) {
        if (p === into.length) throw new Error('More records are staged than the order has room for.');
        into[p++] = this.arrivalOf(headers, h);
      }
    }
    if (p !== into.length) throw new Error(`The staging holds ${p} records; ${into.length} were expected.`);
  }

  /**
   * After dedupe(): each record's STATE, text (UTF-8), PID rank in its state (0 = its lowest PID)
   * and extras, in the order order() gives. A record's bytes are good until the next is asked for.
   */
  *records(): Generator<RecordBytes> {
    for (const buckets of this.states()) {
      const { ranks, sortedOf } = this.pidRanks(buckets);
      let p = 0;
      for (const [b, bucket] of buckets.entries()) {
        const headers = this.loadHeaders(bucket);
        const textAt = textStarts(headers);
        const key = headers[KEY]!;
        const state = String.fromCharCode(key >>> 8, key & 0xff);
        const sorted = sortedOf[b]!;
        sortedOf[b] = undefined; // written: its memory may go
        for (let from = 0; from < sorted.length;) {
          const to = this.passEnd(headers, sorted, from);
          const { texts, at } = this.passTexts(bucket, headers, textAt, sorted.subarray(from, to));
          for (let k = from; k < to; k++) {
            const h = sorted[k]!;
            const start = at[k - from]!;
            const end = start + headers[h + LENGTH]!;
            yield {
              state,
              bytes: texts,
              start,
              end,
              rank: ranks[p++]!,
              hhidHash: headers[h + HHID_HASH]!,
              extras: headers,
              extrasAt: h + EXTRAS,
            };
          }
          from = to;
        }
      }
    }
  }

  /** The buckets, a state's together (they are sorted by STATE first). */
  private *states(): Generator<Bucket[]> {
    const stateOf = (b: number): number => Math.floor(this.buckets[b]!.id / ZIP_BUCKETS);
    let from = 0;
    for (let b = 1; b <= this.buckets.length; b++) {
      if (b < this.buckets.length && stateOf(b) === stateOf(from)) continue;
      yield this.buckets.slice(from, b);
      from = b;
    }
  }

  /**
   * The PID rank of each record of one state's buckets, in the order records() gives them: its
   * PIDs (16 bytes a record, one state at a time) sorted once. Each bucket's rows in the file's
   * order come back too (4 bytes a record), so that writing them does not sort the bucket again.
   */
  private pidRanks(buckets: readonly Bucket[]): { ranks: Uint32Array; sortedOf: Array<Uint32Array | undefined> } {
    const rows = buckets.reduce((sum, b) => sum + b.rows, 0);
    const pids = new Uint32Array(rows * 4);
    const sortedOf: Uint32Array[] = [];
    let n = 0;
    for (const bucket of buckets) {
      const headers = this.loadHeaders(bucket);
      const sorted = this.sorted(headers);
      sortedOf.push(sorted);
      for (const h of sorted) pids.set(headers.subarray(h + KEY + 1, h + KEY + KEY_WORDS), 4 * n++);
    }
    const byPid = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => comparePids(pids, a, b));
    const ranks = new Uint32Array(n);
    for (let r = 0; r < n; r++) ranks[byPid[r]!] = r;
    return { ranks, sortedOf };
  }

  /** One field's values (FIELDS index) of the records in the order records() gives (see needsRebuild). */
  *fieldValues(field: number): Generator<string> {
    for (const record of this.records()) yield (JSON.parse(recordText(record)) as string[])[field]!;
  }

  private arrivalOf(headers: Uint32Array, h: number): number {
    return this.bases[headers[h + READER]!]! + headers[h + NUMBER]!;
  }

  /**
   * The offsets in `headers` of a bucket's rows that stay (not replaced), in the file's order: by
   * household (ZIP, ADDRESS hash, HHID hash), then PID. Within a bucket STATE is one, and after
   * dedupe() a PID is there once, so no two rows tie.
   */
  private sorted(headers: Uint32Array): Uint32Array {
    const dropped = this.dropped;
    const kept = new Uint32Array(headers.length / HEADER_WORDS);
    let n = 0;
    for (let h = 0; h < headers.length; h += HEADER_WORDS) if (!dropped?.[this.arrivalOf(headers, h)]) kept[n++] = h;
    return kept.subarray(0, n).sort((a, b) => compareInFile(headers, a, b));
  }

  /** A bucket's rows' headers, in arrival order. */
  private loadHeaders(bucket: Bucket): Uint32Array {
    if (bucket.headers.size !== bucket.rows * HEADER_BYTES) throw new Error('A staging bucket lost track of its rows.');
    const headers = new Uint32Array(bucket.rows * HEADER_WORDS);
    const bytes = new Uint8Array(headers.buffer);
    let to = 0;
    for (const chunk of this.file.chunksOf(bucket.headers)) {
      bytes.set(chunk, to);
      to += chunk.byteLength;
    }
    return headers;
  }

  /** Where the pass that starts at `sorted[from]` ends: its texts take at most bucketTextBytes (one text at least). */
  private passEnd(headers: Uint32Array, sorted: Uint32Array, from: number): number {
    let bytes = headers[sorted[from]! + LENGTH]!;
    let to = from + 1;
    while (to < sorted.length && bytes + headers[sorted[to]! + LENGTH]! <= this.bucketTextBytes) bytes += headers[sorted[to++]! + LENGTH]!;
    return to;
  }

  /**
   * The texts of the rows at `rows` (offsets in `headers`), one after the other in that order, and
   * where each starts: one read of the bucket's chunks, keeping only these rows' texts. A chunk holds
   * whole texts (ChunkFile.gather writes a chunk out before a text that would not fit).
   */
  private passTexts(bucket: Bucket, headers: Uint32Array, textAt: Float64Array, rows: Uint32Array): { texts: Buffer; at: Float64Array } {
    // Each row's place in this pass's buffer, by arrival within the bucket (-1: not in this pass).
    const place = new Float64Array(bucket.rows).fill(-1);
    const at = new Float64Array(rows.length);
    let size = 0;
    for (let k = 0; k < rows.length; k++) {
      at[k] = size;
      place[rows[k]! / HEADER_WORDS] = size;
      size += headers[rows[k]! + LENGTH]!;
    }
    if (this.passBuffer.length < size)
      this.passBuffer = Buffer.allocUnsafe(Math.max(size, Math.min(this.bucketTextBytes, 2 * this.passBuffer.length)));
    const texts = this.passBuffer;
    let r = 0;
    let streamAt = 0;
    for (const chunk of this.file.chunksOf(bucket.texts)) {
      const end = streamAt + chunk.byteLength;
      for (; r < bucket.rows && textAt[r]! < end; r++) {
        if (place[r]! < 0) continue;
        const from = textAt[r]! - streamAt;
        texts.set(chunk.subarray(from, from + headers[r * HEADER_WORDS + LENGTH]!), place[r]!);
      }
      streamAt = end;
    }
    return { texts, at };
  }

  /** Closes the file and deletes it in the background; the promise says when it is gone. */
  async disposeInBackground(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.file.close();
    await rm(this.path, { force: true });
  }

  /** Closes and deletes the file; safe to call more than once. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.file.close();
    } finally {
      rmSync(this.path, { force: true });
    }
  }
}
