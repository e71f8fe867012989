// The body of one streamed INSERT request, filled while the request runs: the loader pushes text,
// the HTTP client pulls it. It holds at most a few batches, so a load's memory does not grow with
// the dataset, and a loader feeding several requests (one a shard) waits for the slowest server
// rather than buffering for it. A request that fails stops the pushing at once.

/** Text held before push() waits for the request to take some (about two 2,000-record batches). */
const HELD_CHARACTERS = 6_000_000;

export class InsertBody {
  private readonly chunks: string[] = [];
  private held = 0;
  private ended = false;
  private failure: unknown = null;
  private wakeReader: (() => void) | null = null;
  private wakeWriter: (() => void) | null = null;

  /** Adds text; resolves once the body holds little enough; rejects if the request failed. */
  async push(text: string): Promise<void> {
    if (this.failure) throw this.failure;
    if (!text) return;
    this.chunks.push(text);
    this.held += text.length;
    this.resumeReader();
    while (this.held > HELD_CHARACTERS && !this.failure) await new Promise<void>((resolve) => (this.wakeWriter = resolve));
    if (this.failure) throw this.failure;
  }

  /** No more text: the request's body ends once it has taken what is held. */
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
  async *text(): AsyncGenerator<string> {
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
