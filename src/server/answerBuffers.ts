// Buffers for search answers, kept and reused. An answer of 100 full records is ~0.8 MB of JSON;
// allocated fresh for each one, that memory lies outside V8's heap but counts against the limit at
// which V8 collects the whole heap, and at 10M the main thread then paused for a full collection
// (4-15 ms) every dozen pages: the requests it landed on were the slowest 5% of pages and counts
// (docs/performance.md, "What a user meets first"). A buffer goes back to the pool once the response
// has handed its last byte to the operating system ('finish'); a response that ends any other way
// (the client gone mid-write) leaves its buffer to the garbage collector, as a write may still hold it.
import type { ServerResponse } from 'node:http';

/** Buffers are allocated in steps of this size, so answers of slightly different sizes share them. */
const STEP = 256 * 1024;

export class AnswerBuffers {
  private readonly free: Buffer[] = [];
  /** Buffers handed out and not yet back (tests read it). */
  outstanding = 0;

  constructor(
    /** Free buffers kept; more answers at once than this allocate as before. */
    private readonly keep = 4,
    /** An answer larger than this is allocated for itself and not kept (a page of 1,000 records is ~8 MB). */
    private readonly largest = 16 * 1024 * 1024,
  ) {}

  /** Free buffers waiting to be reused (tests read it). */
  get kept(): number {
    return this.free.length;
  }

  /** A buffer of at least `size` bytes: the smallest free kept one large enough, else a new one. */
  take(size: number): Buffer {
    // Largest first: the last one that fits is the smallest.
    let i = this.free.length - 1;
    while (i >= 0 && this.free[i]!.length < size) i--;
    if (i >= 0) {
      this.outstanding++;
      return this.free.splice(i, 1)[0]!;
    }
    if (size > this.largest) return Buffer.allocUnsafe(size);
    this.outstanding++;
    return Buffer.allocUnsafe(Math.ceil(Math.max(size, 1) / STEP) * STEP);
  }

  /** Gives `buffer` (from take()) back once `response` has sent everything; never when it closes first. */
  returnAfter(buffer: Buffer, response: ServerResponse): void {
    if (buffer.length > this.largest) return;
    const finished = () => {
      response.off('close', closed);
      this.give(buffer);
    };
    const closed = () => {
      response.off('finish', finished);
      this.outstanding--;
    };
    response.once('finish', finished);
    response.once('close', closed);
  }

  /** Back into the pool (the smallest buffers go first when it is full). */
  private give(buffer: Buffer): void {
    this.outstanding--;
    this.free.push(buffer);
    this.free.sort((a, b) => b.length - a.length);
    if (this.free.length > this.keep) this.free.length = this.keep;
  }
}
