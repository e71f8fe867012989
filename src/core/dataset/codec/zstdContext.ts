// zstd through node:zlib (no native package to rebuild for Electron), with one compression or
// decompression context kept for many frames. node:zlib's one-shot functions (zstdDecompressSync…)
// build a stream object and a fresh zstd context for every call, and load the dictionary into it
// again: measured at 30-80 µs a call on top of the ~50 µs that decompressing a 42 KB record block
// takes, which is most of the cost of a page of scattered records (docs/dataset-format.md,
// "Reading a block"). A kept context goes through the stream's handle (`_handle.writeSync`, the
// call node:zlib's own *Sync functions make), which Node does not document: it is checked once at
// load with a round trip, and if it is missing or behaves differently the one-shot functions are
// used instead, slower but the same bytes.
import { constants, createZstdCompress, createZstdDecompress, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { isOneFrameOf, streamContentSize, zstdFrames } from './zstdFrames';

interface ZstdHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

/** A zlib stream object of Node's, with the private fields a kept context uses. */
interface ZstdEngine {
  _handle?: ZstdHandle | null;
  _writeState?: Uint32Array;
  destroyed: boolean;
  on(event: 'error', listener: (e: Error) => void): unknown;
  close(): void;
}

type Params = Record<number, number>;

function newEngine(kind: 'compress' | 'decompress', params: Params, dictionary: Uint8Array | undefined): ZstdEngine | null {
  const options = { params, ...(dictionary && dictionary.byteLength > 0 ? { dictionary: Buffer.from(dictionary) } : {}) };
  const engine = (kind === 'compress' ? createZstdCompress(options) : createZstdDecompress(options)) as unknown as ZstdEngine;
  // Errors are read from `destroyed` right after each call; this keeps the later 'error' event quiet.
  engine.on('error', () => undefined);
  if (typeof engine._handle?.writeSync !== 'function' || !(engine._writeState instanceof Uint32Array)) {
    engine.close();
    return null;
  }
  return engine;
}

/**
 * One call into a kept context: all of `input` in, into `out`; the bytes written, or -1 when the
 * context failed or did not take all the input (it is then dropped by the caller).
 */
function run(engine: ZstdEngine, input: Uint8Array, out: Uint8Array): number {
  engine._handle!.writeSync(constants.ZSTD_e_end, input, 0, input.byteLength, out, 0, out.byteLength);
  if (engine.destroyed) return -1;
  const [availOut, availIn] = engine._writeState!;
  if (availIn !== 0) return -1;
  return out.byteLength - availOut!;
}

/**
 * Room enough for the frame of `input`: more than ZSTD_compressBound(n) (n + n/256 + 64 for these
 * sizes), so one call always ends the frame. The one-shot function gets it as its chunk size: when
 * its output fills a chunk exactly it calls zstd again with the end flag, which begins and ends a
 * second, empty frame.
 */
export const frameBound = (input: Uint8Array): number => input.byteLength + (input.byteLength >> 7) + 1024;

/** Compresses many inputs with one level and dictionary; every frame states its content size. */
export class ZstdCompressor {
  private engine: ZstdEngine | null = null;
  private readonly params: Params;

  constructor(
    level: number,
    private readonly dictionary?: Uint8Array,
    /** Whether to keep a context (tests turn it off to check the one-shot path). */
    private readonly keep = keptContexts,
    /**
     * Whether each frame ends with a checksum of its content, which decompression then checks. The
     * dataset's blocks and chunks have CRCs of their own; a scratch file has none.
     */
    checksum = false,
  ) {
    this.params = { [constants.ZSTD_c_compressionLevel]: level, [constants.ZSTD_c_checksumFlag]: checksum ? 1 : 0 };
  }

  /**
   * `input` as one zstd frame that states its size. Anything else is a bug of this writer's and is
   * refused here, before it reaches a file (a piece once held a frame and then an empty frame).
   */
  compress(input: Uint8Array): Buffer {
    const frame = this.frame(input);
    if (!isOneFrameOf(frame, input.byteLength))
      throw new Error(
        `zstd wrote ${frame.byteLength} bytes that are not one frame of ${input.byteLength}: refused before they reach a file.`,
      );
    return frame;
  }

  /**
   * compress() into `out` from its start, for a caller that keeps where frames go (the import's
   * staging gathers them for one write): the frame's length. `out` must hold frameBound(input).
   */
  compressInto(input: Uint8Array, out: Uint8Array): number {
    if (out.byteLength < frameBound(input)) throw new Error('compressInto was given too little room for the frame.');
    const n = this.compressKept(input, out);
    if (n > 0) {
      if (isOneFrameOf(out.subarray(0, n), input.byteLength)) return n;
      this.drop();
    }
    const frame = this.compress(input);
    out.set(frame);
    return frame.byteLength;
  }

  close(): void {
    this.drop();
  }

  private frame(input: Uint8Array): Buffer {
    const bound = frameBound(input);
    if (this.keep) {
      const out = Buffer.allocUnsafe(bound);
      const n = this.compressKept(input, out);
      if (n > 0) return Buffer.from(out.subarray(0, n));
    }
    return zstdCompressSync(input, { params: this.params, chunkSize: bound, ...this.dictionaryOption() });
  }

  /**
   * `input` into `out` (room for frameBound) through the kept context: the bytes written, or -1
   * when no context is kept or it failed (it is then dropped, and the next call makes a new one).
   */
  private compressKept(input: Uint8Array, out: Uint8Array): number {
    if (!this.keep) return -1;
    this.engine ??= newEngine('compress', this.params, this.dictionary);
    if (!this.engine) return -1;
    const n = run(this.engine, input, out);
    if (n > 0 && n < out.byteLength) return n;
    this.drop();
    return -1;
  }

  private dictionaryOption(): { dictionary?: Buffer } {
    return this.dictionary && this.dictionary.byteLength > 0 ? { dictionary: Buffer.from(this.dictionary) } : {};
  }

  private drop(): void {
    this.engine?.close();
    this.engine = null;
  }
}

/** Where an empty frame is decompressed to: it writes nothing there. */
const EMPTY_FRAME_SCRATCH = new Uint8Array(1);

/** Decompresses many pieces made with one dictionary (or none), each into a buffer of exactly its size. */
export class ZstdDecompressor {
  private engine: ZstdEngine | null = null;

  constructor(
    private readonly dictionary?: Uint8Array,
    /** Whether to keep a context (tests turn it off to check the one-shot path). */
    private readonly keep = keptContexts,
  ) {}

  /** The piece's content, which must be exactly `size` bytes; throws when it does not decompress or is another size. */
  decompress(piece: Uint8Array, size: number): Buffer {
    const out = Buffer.allocUnsafe(size);
    this.decompressInto(piece, out);
    return out;
  }

  /**
   * A stored piece decompressed into `out`, which its content must fill exactly; throws when it
   * does not decompress or is another size (`out` then holds anything). A piece is a zstd stream:
   * one frame as this version writes it, or several (empty and skippable ones too, as an older
   * writer left some), read frame by frame the same way on both paths. Bytes that are not whole
   * frames are refused before anything is decompressed (node:zlib's one-shot function would
   * ignore what follows the first frame). Writing where the bytes are kept spares a buffer a
   * piece: fresh memory costs a page fault a page on first touch (~17 µs each on the machine this
   * was measured on), more than decompressing into it.
   */
  decompressInto(piece: Uint8Array, out: Uint8Array): void {
    const frames = zstdFrames(piece);
    if (!frames) throw new Error('The bytes are not whole zstd frames.');
    let at = 0;
    for (const frame of frames) {
      if (frame.skippable) continue;
      const bytes = frames.length === 1 ? piece : piece.subarray(frame.start, frame.end);
      const stated = frame.contentSize >= 0;
      const room = stated ? frame.contentSize : out.byteLength - at;
      if (at + room > out.byteLength) throw new Error('The zstd frames hold more than their size.');
      at += this.decompressFrame(bytes, out.subarray(at, at + room), stated);
    }
    if (at !== out.byteLength) throw new Error('The zstd frames do not decompress to their size.');
  }

  close(): void {
    this.drop();
  }

  /** One whole frame into `out`: the bytes it wrote, which must fill `out` when `exact`. */
  private decompressFrame(frame: Uint8Array, out: Uint8Array, exact: boolean): number {
    const room = out.byteLength;
    // An empty frame still goes through zstd, which checks its blocks against its header.
    const target = room > 0 ? out : EMPTY_FRAME_SCRATCH;
    if (this.keep) {
      this.engine ??= newEngine('decompress', {}, this.dictionary);
      if (this.engine) {
        const n = run(this.engine, frame, target);
        if (n >= 0 && n <= room && (!exact || n === room)) return n;
        // A failed or unfinished frame leaves the context mid-frame: the next one gets a new context.
        this.drop();
        throw new Error('The zstd frame does not decompress to its size.');
      }
    }
    const bytes = zstdDecompressSync(frame, {
      // One spare byte: a chunk filled exactly makes node:zlib allocate a second one to find the end.
      chunkSize: Math.max(64, room + 1),
      ...(this.dictionary && this.dictionary.byteLength > 0 ? { dictionary: Buffer.from(this.dictionary) } : {}),
    });
    if (bytes.byteLength > room || (exact && bytes.byteLength !== room)) throw new Error('The zstd frame does not decompress to its size.');
    out.set(bytes);
    return bytes.byteLength;
  }

  private drop(): void {
    this.engine?.close();
    this.engine = null;
  }
}

/** Whether kept contexts work in this runtime: a round trip with a dictionary, against the one-shot functions. */
function checkKeptContexts(): boolean {
  try {
    const dictionary = Buffer.from('["kept","context","check",1,2,3]\n'.repeat(8));
    const input = Buffer.from('["kept","context","check",4,5,6]\n'.repeat(40));
    const params = { [constants.ZSTD_c_compressionLevel]: 3, [constants.ZSTD_c_checksumFlag]: 0 };
    const compressor = newEngine('compress', params, dictionary);
    const decompressor = newEngine('decompress', {}, dictionary);
    if (!compressor || !decompressor) return false;
    const frames: Buffer[] = [];
    for (let i = 0; i < 2; i++) {
      const out = Buffer.alloc(input.byteLength + 1024);
      const n = run(compressor, input, out);
      if (n <= 0) return false;
      frames.push(out.subarray(0, n));
    }
    const ok = frames.every((frame) => {
      if (streamContentSize(frame) !== input.byteLength) return false;
      const out = Buffer.alloc(input.byteLength);
      return (
        run(decompressor, frame, out) === input.byteLength && out.equals(input) && zstdDecompressSync(frame, { dictionary }).equals(input)
      );
    });
    compressor.close();
    decompressor.close();
    return ok;
  } catch {
    return false;
  }
}

/** True when this runtime's node:zlib lets a context be kept (checked once, at load). */
export const keptContexts = checkKeptContexts();
