// Memory for one-byte vectors (365 of the 392 fields), written once at start-up so that a field's
// first use does not pay for fresh pages. A vector is a SharedArrayBuffer the length of the file,
// and a first use writes a state's part of it: memory the process has never touched, each 4 KB page
// a fault. On the slower VM of docs/performance.md (a Firecracker guest) a fault
// costs ~11 µs, so writing California's 3.56 MB of GENDER at 30M took ~10 ms of faults alone, most
// of that first use; memory written before costs ~1 ms for the same bytes. The serving start-up
// (EmbeddedEngine.ready) fills the reserve, and refills it a step at a time while requests are quiet
// (query/writeAhead.ts); a vector taken from it is zeros, as a new one is.
import { settings } from '../../config';

/** At most this many bytes of a reserved vector are written ahead (a national file's are ~330 MB each). */
export const RESERVE_WRITE_MAX_BYTES = 64 * 2 ** 20;

/** Positions of the file, [first, first + count). */
export interface ReserveRange {
  first: number;
  count: number;
}

interface Readied {
  buffer: SharedArrayBuffer;
  /** Bytes written ahead, the first of the ranges in order. */
  written: number;
}

export class VectorReserve {
  /** Each vector's memory ready, with the bytes written ahead in it. */
  private readonly ready: Readied[] = [];
  /** A vector being written ahead a step at a time (fillStep), not yet handed out. */
  private filling: Readied | null = null;

  /** `length`: the file's records (a one-byte vector's bytes). */
  constructor(private readonly length: number) {}

  /**
   * Makes `count` vectors' memory ready, each written over `ranges` in order (largest states first)
   * up to RESERVE_WRITE_MAX_BYTES and an eighth of the vector memory budget; the rest of each
   * stays as the OS gives it.
   */
  fill(count: number, ranges: readonly ReserveRange[], budgetBytes = settings().vectorMemoryMb * 2 ** 20): void {
    while (this.fillStep(count, ranges, Infinity, budgetBytes));
  }

  /**
   * Writes ahead at most `stepBytes` more of the next vector while fewer than `count` are ready (the
   * same bytes fill() writes, in pieces short enough to run between requests); false once `count`
   * are ready.
   */
  fillStep(count: number, ranges: readonly ReserveRange[], stepBytes: number, budgetBytes = settings().vectorMemoryMb * 2 ** 20): boolean {
    if (this.ready.length >= count) return false;
    const limit = Math.min(
      RESERVE_WRITE_MAX_BYTES,
      Math.floor(budgetBytes / 8),
      ranges.reduce((sum, r) => sum + r.count, 0),
    );
    const filling = (this.filling ??= { buffer: new SharedArrayBuffer(this.length), written: 0 });
    const bytes = new Uint8Array(filling.buffer);
    // The ranges' bytes from `written` on, up to the step and the limit.
    let skip = filling.written;
    let left = Math.min(stepBytes, limit - filling.written);
    for (const range of ranges) {
      if (left <= 0) break;
      if (skip >= range.count) {
        skip -= range.count;
        continue;
      }
      const n = Math.min(range.count - skip, left);
      // Zeros written over zeros: the value is what a new buffer holds, but the pages are now mapped.
      bytes.fill(0, range.first + skip, range.first + skip + n);
      filling.written += n;
      left -= n;
      skip = 0;
    }
    if (filling.written >= limit) {
      this.ready.push(filling);
      this.filling = null;
    }
    return this.ready.length < count;
  }

  /** A ready vector's memory (zeros), or null when none is left. */
  take(): Uint8Array | null {
    const next = this.ready.pop();
    return next ? new Uint8Array(next.buffer) : null;
  }

  /** Vectors ready, and the bytes written ahead in them and in one being written (resident memory no field holds yet). */
  held(): { vectors: number; bytes: number } {
    return { vectors: this.ready.length, bytes: this.ready.reduce((sum, r) => sum + r.written, this.filling?.written ?? 0) };
  }
}
