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

/** The decompressed size a zstd frame's header states (RFC 8878, 3.1.1.1), or -1 if it states none or is not a frame. */
export function frameContentSize(frame: Uint8Array): number {
  if (frame.byteLength < 6 || frame[0] !== 0x28 || frame[1] !== 0xb5 || frame[2] !== 0x2f || frame[3] !== 0xfd) return -1;
  const descriptor = frame[4]!;
  const single = (descriptor >> 5) & 1;
  const sizeFlag = descriptor >> 6;
  const at = 5 + (single ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]!;
  const bytes = sizeFlag === 0 ? single : [1, 2, 4, 8][sizeFlag]!;
  if (bytes === 0 || at + bytes > frame.byteLength) return -1;
  let size = 0;
  for (let i = bytes - 1; i >= 0; i--) size = size * 256 + frame[at + i]!;
  return bytes === 2 ? size + 256 : size;
}

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

  compress(input: Uint8Array): Buffer {
    if (this.keep) {
      this.engine ??= newEngine('compress', this.params, this.dictionary);
      if (this.engine) {
        // More than ZSTD_compressBound(n) (n + n/256 + 64 for these sizes): one call always ends the frame.
        const out = Buffer.allocUnsafe(input.byteLength + (input.byteLength >> 7) + 1024);
        const n = run(this.engine, input, out);
        if (n > 0 && n < out.byteLength) return Buffer.from(out.subarray(0, n));
        this.drop();
      }
    }
    return zstdCompressSync(input, { params: this.params, ...this.dictionaryOption() });
  }

  close(): void {
    this.drop();
  }

  private dictionaryOption(): { dictionary?: Buffer } {
    return this.dictionary && this.dictionary.byteLength > 0 ? { dictionary: Buffer.from(this.dictionary) } : {};
  }

  private drop(): void {
    this.engine?.close();
    this.engine = null;
  }
}

/** Decompresses many frames made with one dictionary (or none), each into a buffer of exactly its size. */
export class ZstdDecompressor {
  private engine: ZstdEngine | null = null;

  constructor(
    private readonly dictionary?: Uint8Array,
    /** Whether to keep a context (tests turn it off to check the one-shot path). */
    private readonly keep = keptContexts,
  ) {}

  /** The frame's bytes, which must be exactly `size`; throws when they do not decompress or are another size. */
  decompress(frame: Uint8Array, size: number): Buffer {
    const out = Buffer.allocUnsafe(size);
    this.decompressInto(frame, out);
    return out;
  }

  /**
   * The frame's bytes written into `out`, which they must fill exactly; throws when they do not
   * decompress or are another size (`out` then holds anything). Writing where the bytes are kept
   * spares a buffer a frame: fresh memory costs a page fault a page on first touch (~17 µs each on
   * the machine this was measured on), more than decompressing into it.
   */
  decompressInto(frame: Uint8Array, out: Uint8Array): void {
    const size = out.byteLength;
    if (this.keep) {
      this.engine ??= newEngine('decompress', {}, this.dictionary);
      if (this.engine) {
        const n = run(this.engine, frame, out);
        if (n === size) return;
        // A failed or unfinished frame leaves the context mid-frame: the next one gets a new context.
        this.drop();
        throw new Error('The zstd frame does not decompress to its size.');
      }
    }
    out.set(this.oneShot(frame, size));
  }

  private oneShot(frame: Uint8Array, size: number): Buffer {
    const out = zstdDecompressSync(frame, {
      // One spare byte: a chunk filled exactly makes node:zlib allocate a second one to find the end.
      chunkSize: Math.max(64, size + 1),
      ...(this.dictionary && this.dictionary.byteLength > 0 ? { dictionary: Buffer.from(this.dictionary) } : {}),
    });
    if (out.byteLength !== size) throw new Error('The zstd frame does not decompress to its size.');
    return out;
  }

  close(): void {
    this.drop();
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
      if (frameContentSize(frame) !== input.byteLength) return false;
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
