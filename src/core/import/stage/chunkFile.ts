// The staging file's bytes (staging.ts): streams of bytes, a bucket's row headers or its texts, each
// gathered in memory and appended to one scratch file a chunk at a time, then read back a chunk at a
// time. A text stream's chunks are zstd frames (level STAGING_LEVEL) with a checksum: the file takes
// a fraction of the input's JSON, since the scratch room a national import needs is what decides
// whether it fits on a laptop, and a text changed on disk is refused instead of written into a
// dataset. docs/import.md, "Compressed staging".
import { closeSync } from 'node:fs';
import { replacePrivateFile } from '../../fs/privateFile';
import { readAllAt, writeAllAt } from '../../fs/positionedIo';
import { keptContexts, ZstdCompressor, ZstdDecompressor } from '../../dataset/codec/zstdContext';

/**
 * zstd's level for the texts' chunks. Level 1 is the fastest level that still finds the fields a
 * ZIP area's records share; docs/import.md ("Compressed staging") says what it costs and saves.
 */
const STAGING_LEVEL = 1;

/** Bytes of one stream, gathered in memory and written to the file in chunks. */
export class Stream {
  /** The bytes given to it (before any compression). */
  size = 0;
  /**
   * Each written chunk: where it is in the file, its length there and the length of the bytes it
   * holds (the same unless compressed): [at, stored, bytes, at, stored, bytes, ...].
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
  private size = 0;
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
    let frame = Buffer.alloc(0);
    let bytes = Buffer.alloc(0);
    for (let c = 0; c < stream.chunks.length; c += 3) {
      const at = stream.chunks[c]!;
      const stored = stream.chunks[c + 1]!;
      const size = stream.chunks[c + 2]!;
      if (bytes.byteLength < size) bytes = Buffer.allocUnsafe(Math.max(size, stream.chunkBytes));
      if (!stream.compressed) this.readAt(bytes, stored, at);
      else {
        if (frame.byteLength < stored) frame = Buffer.allocUnsafe(Math.max(stored, stream.chunkBytes));
        this.readAt(frame, stored, at);
        try {
          this.decompressor.decompressInto(frame.subarray(0, stored), bytes.subarray(0, size));
        } catch {
          throw new Error('The staging file does not read back as it was written (damaged on disk?).');
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
    const stored = stream.compressed ? this.compressor.compress(bytes) : bytes;
    writeAllAt(this.fd, stored, this.size);
    stream.chunks.push(this.size, stored.byteLength, bytes.byteLength);
    this.size += stored.byteLength;
  }

  private readAt(into: Uint8Array, length: number, at: number): void {
    if (!readAllAt(this.fd, into, length, at)) throw new Error('The staging file is shorter than what was written to it.');
  }
}
