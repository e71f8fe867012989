// The record block a dataset writer is filling: its records' texts joined by newlines, in UTF-8, in
// one buffer kept for every block. The import hands texts on as the bytes it staged, so a block
// is made without a string for any of its records (recordExtras.ts); a text given as a string is
// encoded once, here.
const NEWLINE = 0x0a;

export class BlockText {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private length = 0;
  /** Records in the block. */
  count = 0;

  addString(text: string): void {
    this.room(3 * text.length + 1); // the most UTF-8 bytes a string of that length can take
    if (this.count++ > 0) this.buffer[this.length++] = NEWLINE;
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** A text given as bytes [start, end) of `bytes`, UTF-8. */
  addBytes(bytes: Uint8Array, start: number, end: number): void {
    this.room(end - start + 1);
    if (this.count++ > 0) this.buffer[this.length++] = NEWLINE;
    this.buffer.set(bytes.subarray(start, end), this.length);
    this.length += end - start;
  }

  /** The block's bytes; valid until the next add or clear(). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }

  clear(): void {
    this.length = this.count = 0;
  }

  private room(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const wider = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, this.length + more));
    this.buffer.copy(wider, 0, 0, this.length);
    this.buffer = wider;
  }
}
