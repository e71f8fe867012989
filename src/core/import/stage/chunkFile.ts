// The staging file's bytes (staging.ts): streams of bytes, a bucket's row headers or its texts, each
// gathered in memory and appended to one scratch file a chunk at a time (the chunks written a
// megabyte at a time), then read back a chunk at a time. A compressed stream's chunks are zstd
// frames (level STAGING_LEVEL) with zstd's checksum: the texts then take a fraction of the input's
// JSON, which is what decides whether a national import's scratch room fits on a laptop. Other
// chunks are stored as given, with a CRC-32 of their own. Either way a chunk changed on disk is
// refused instead of written into a dataset. docs/import.md, "Compressed staging".
import { closeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { replacePrivateFile } from '../../fs/privateFile';
import { readAllAt, writeAllAt } from '../../fs/positionedIo';
import { frameBound, keptContexts, ZstdCompressor, ZstdDecompressor } from '../../dataset/codec/zstdContext';

/**
 * zstd's level for the texts' chunks. Level 1 is the fastest level that still finds the fields a
 * ZIP area's records share; docs/import.md ("Compressed staging") says what it costs and saves.
 */
const STAGING_LEVEL = 1;
/**
 * Stored chunks are gathered up to this many bytes and written in one call: a write a chunk (~12,000
 * for four states' 200,000 rows) cost ~0.4 s of the main thread's system time on the VM of
 * docs/performance.md's 29 November.
 */
const WRITE_BYTES = 1 << 20;

/** Numbers Stream.chunks holds a chunk. */
const CHUNK_WORDS = 4;

const damaged = (): Error => new Error('The staging file does not read back as it was written (damaged on disk?).');

/** Bytes of one stream, gathered in memory and written to the file in chunks. */
export class Stream {
  /** The bytes given to it (before any compression). */
  size = 0;
  /**
   * Each written chunk: where it is in the file, its length there, the length of the bytes it holds
   * (the same unless compressed) and, when not compressed, their CRC-32 (0 for a zstd frame, which
   * carries its own checksum): [at, stored, bytes, crc, at, stored, bytes, crc, ...].
   */
  readonly chunks: number[] = [];
  gathered: Buffer | undefined;
  used = 0;
  constructor(
    readonly chunkBytes: number,
    readonly compressed: boolean,
  ) {}
}

export class ChunkFile {
  private readonly fd: number;
  /** The file's bytes, those not yet written included. */
  private size = 0;
  /** Chunks waiting to be written, at `written` in the file. */
  private readonly pending = Buffer.allocUnsafe(WRITE_BYTES);
  private pendingUsed = 0;
  private written = 0;
  private readonly compressor = new ZstdCompressor(STAGING_LEVEL, undefined, keptContexts, true);
  private readonly decompressor = new ZstdDecompressor();

  constructor(path: string) {
    this.fd = replacePrivateFile(path); // every row's text: owner-only from the start
  }

  /**
   * Adds `source[start, end)` to the stream. A chunk always holds whole pieces: one that would not
   * fit writes the chunk out first, and one longer than a chunk is written as a chunk of its own.
   */
  gather(stream: Stream, source: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (stream.used + length > stream.chunkBytes) this.writeGathered(stream);
    if (length > stream.chunkBytes) this.writeChunk(stream, source.subarray(start, end));
    else {
      stream.gathered ??= Buffer.allocUnsafe(stream.chunkBytes);
      stream.gathered.set(source.subarray(start, end), stream.used);
      stream.used += length;
    }
    stream.size += length;
  }

  /** Writes out what the stream has gathered and lets its buffer go: it takes no more pieces. */
  end(stream: Stream): void {
    this.writeGathered(stream);
    stream.gathered = undefined;
  }

  /** Bytes of the file so far: what the import needs of scratch room. */
  get bytes(): number {
    return this.size;
  }

  /** A stream's chunks in order, as they were given (decompressed); each is only valid until the next. */
  *chunksOf(stream: Stream): Generator<Buffer> {
    this.writePending();
    let frame = Buffer.alloc(0);
    let bytes = Buffer.alloc(0);
    for (let c = 0; c < stream.chunks.length; c += CHUNK_WORDS) {
      const at = stream.chunks[c]!;
      const stored = stream.chunks[c + 1]!;
      const size = stream.chunks[c + 2]!;
      if (bytes.byteLength < size) bytes = Buffer.allocUnsafe(Math.max(size, stream.chunkBytes));
      if (!stream.compressed) {
        this.readAt(bytes, stored, at);
        if (crc32(bytes.subarray(0, size)) !== stream.chunks[c + 3]) throw damaged();
      } else {
        if (frame.byteLength < stored) frame = Buffer.allocUnsafe(Math.max(stored, stream.chunkBytes));
        this.readAt(frame, stored, at);
        try {
          this.decompressor.decompressInto(frame.subarray(0, stored), bytes.subarray(0, size));
        } catch {
          throw damaged();
        }
      }
      yield bytes.subarray(0, size);
    }
  }

  close(): void {
    this.compressor.close();
    this.decompressor.close();
    closeSync(this.fd);
  }

  private writeGathered(stream: Stream): void {
    if (stream.used === 0) return;
    this.writeChunk(stream, stream.gathered!.subarray(0, stream.used));
    stream.used = 0;
  }

  private writeChunk(stream: Stream, bytes: Uint8Array): void {
    const room = stream.compressed ? frameBound(bytes) : bytes.byteLength;
    if (this.pendingUsed + room > this.pending.byteLength) this.writePending();
    let stored: number;
    if (room > this.pending.byteLength) {
      // A piece longer than the whole buffer (a row of over 1 MB) goes by itself.
      const frame = stream.compressed ? this.compressor.compress(bytes) : bytes;
      writeAllAt(this.fd, frame, this.size);
      stored = frame.byteLength;
      this.written += stored;
    } else {
      const into = this.pending.subarray(this.pendingUsed);
      if (stream.compressed) stored = this.compressor.compressInto(bytes, into);
      else {
        into.set(bytes);
        stored = bytes.byteLength;
      }
      this.pendingUsed += stored;
    }
    stream.chunks.push(this.size, stored, bytes.byteLength, stream.compressed ? 0 : crc32(bytes));
    this.size += stored;
  }

  /** Writes the chunks still waiting in memory (reading a stream does this first too). */
  writePending(): void {
    if (this.pendingUsed === 0) return;
    writeAllAt(this.fd, this.pending.subarray(0, this.pendingUsed), this.written);
    this.written += this.pendingUsed;
    this.pendingUsed = 0;
  }

  private readAt(into: Uint8Array, length: number, at: number): void {
    if (!readAllAt(this.fd, into, length, at)) throw new Error('The staging file is shorter than what was written to it.');
  }
}
