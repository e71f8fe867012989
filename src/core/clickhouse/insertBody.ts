// The body of one streamed INSERT request, filled while the request runs: the loader pushes lines
// (bytes), the HTTP client pulls them. It holds at most a few batches, so a load's memory does not grow with
// the dataset, and a loader feeding several requests (one a shard) waits for the slowest server
// rather than buffering for it. A request that fails stops the pushing at once.

/** Bytes held before push() waits for the request to take some (one to two 2,000-record batches). */
const HELD_BYTES = 6_000_000;

export class InsertBody {
  private readonly chunks: Buffer[] = [];
  private held = 0;
  private ended = false;
  private failure: unknown = null;
  private wakeReader: (() => void) | null = null;
  private wakeWriter: (() => void) | null = null;

  /** Adds lines; resolves once the body holds little enough; rejects if the request failed. */
  async push(lines: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (lines.length === 0) return;
    this.chunks.push(lines);
    this.held += lines.length;
    this.resumeReader();
    while (this.held > HELD_BYTES && !this.failure) await new Promise<void>((resolve) => (this.wakeWriter = resolve));
    if (this.failure) throw this.failure;
  }

  /** No more lines: the request's body ends once it has taken what is held. */
  end(): void {
    this.ended = true;
    this.resumeReader();
  }

  /**
   * The request or the loader failed: a waiting or later push() rejects with the error, and the body
   * throws it too, so the request is aborted rather than ended (nothing half-sent is taken as whole).
   */
  fail(error: unknown): void {
    this.failure ??= error;
    this.resumeReader();
    this.resumeWriter();
  }

  /** What the request sends, in the order pushed. */
  async *text(): AsyncGenerator<Buffer> {
    for (;;) {
      if (this.failure) throw this.failure;
      const next = this.chunks.shift();
      if (next !== undefined) {
        this.held -= next.length;
        this.resumeWriter();
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
  }

  private resumeReader(): void {
    const wake = this.wakeReader;
    this.wakeReader = null;
    wake?.();
  }

  private resumeWriter(): void {
    const wake = this.wakeWriter;
    this.wakeWriter = null;
    wake?.();
  }
}
