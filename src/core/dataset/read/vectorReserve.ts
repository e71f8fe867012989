// Memory for one-byte vectors (365 of the 392 fields), written once at start-up so that a field's
// first use does not pay for fresh pages. A vector is a SharedArrayBuffer the length of the file,
// and a first use writes a state's part of it: memory the process has never touched, each 4 KB page
// a fault. On the slower VM of docs/performance.md (a Firecracker guest) a fault
// costs ~11 µs, so writing California's 3.56 MB of GENDER at 30M took ~10 ms of faults alone, most
// of that first use; memory written before costs ~1 ms for the same bytes. The serving start-up
// (EmbeddedEngine.ready) fills the reserve; a vector taken from it is zeros, as a new one is.
import { settings } from '../../config';

/** At most this many bytes of a reserved vector are written ahead (a national file's are ~330 MB each). */
export const RESERVE_WRITE_MAX_BYTES = 64 * 2 ** 20;

/** Positions of the file, [first, first + count). */
export interface ReserveRange {
  first: number;
  count: number;
}

export class VectorReserve {
  /** Each vector's memory ready, with the bytes written ahead in it. */
  private readonly ready: Array<{ buffer: SharedArrayBuffer; written: number }> = [];

  /** `length`: the file's records (a one-byte vector's bytes). */
  constructor(private readonly length: number) {}

  /**
   * Makes `count` vectors' memory ready, each written over `ranges` in order (largest states first)
   * up to RESERVE_WRITE_MAX_BYTES and an eighth of the vector memory budget; the rest of each
   * stays as the OS gives it.
   */
  fill(count: number, ranges: readonly ReserveRange[], budgetBytes = settings().vectorMemoryMb * 2 ** 20): void {
    const limit = Math.min(RESERVE_WRITE_MAX_BYTES, Math.floor(budgetBytes / 8));
    while (this.ready.length < count) {
      const buffer = new SharedArrayBuffer(this.length);
      const bytes = new Uint8Array(buffer);
      let left = limit;
      for (const range of ranges) {
        const n = Math.min(range.count, left);
        // Zeros written over zeros: the value is what a new buffer holds, but the pages are now mapped.
        bytes.fill(0, range.first, range.first + n);
        left -= n;
        if (left === 0) break;
      }
      this.ready.push({ buffer, written: limit - left });
    }
  }

  /** A ready vector's memory (zeros), or null when none is left. */
  take(): Uint8Array | null {
    const next = this.ready.pop();
    return next ? new Uint8Array(next.buffer) : null;
  }

  /** Vectors ready, and the bytes written ahead in them (resident memory no field holds yet). */
  held(): { vectors: number; bytes: number } {
    return { vectors: this.ready.length, bytes: this.ready.reduce((sum, r) => sum + r.written, 0) };
  }
}
