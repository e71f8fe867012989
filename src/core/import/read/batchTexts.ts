// Where a reader writes its batches' record texts: UTF-8 in buffers shared with the thread that stages
// them, reused once that thread has taken a batch in. A batch's texts crossed threads as one string
// (~80 KB) before: joined on the reader, copied into the message and out of it, then encoded to UTF-8
// by the staging, on each of ~3,200 batches of a four-state import; now the reader encodes each text
// once, into memory it keeps using, and only the buffer's handle crosses (docs/import.md, "How it works").
const NEWLINE = 0x0a;
/** A batch's buffer to begin with: 64 rows of ~2 KB. A larger batch gets a larger one. */
const SLOT_BYTES = 128 * 1024;

/** One batch's texts being written: joined by '\n' (which JSON escapes inside a text). */
export class TextSlot {
  buffer: SharedArrayBuffer;
  private bytes: Buffer;
  /** Bytes written. */
  used = 0;
  private count = 0;

  constructor(size = SLOT_BYTES) {
    this.buffer = new SharedArrayBuffer(size);
    this.bytes = Buffer.from(this.buffer);
  }

  add(text: string): void {
    const most = 3 * text.length + 1; // the most UTF-8 bytes a string of that length can take
    if (this.used + most > this.bytes.byteLength) this.grow(this.used + most);
    if (this.count++ > 0) this.bytes[this.used++] = NEWLINE;
    this.used += this.bytes.write(text, this.used, 'utf8');
  }

  /** Empties the slot for a new batch. */
  clear(): void {
    this.used = this.count = 0;
  }

  private grow(size: number): void {
    const buffer = new SharedArrayBuffer(Math.max(size, 2 * this.bytes.byteLength));
    const bytes = Buffer.from(buffer);
    this.bytes.copy(bytes, 0, 0, this.used);
    this.buffer = buffer;
    this.bytes = bytes;
  }
}

/**
 * A reader's slots. A batch's slot is in use from when its first text is written until the
 * taker is done with it: when the sink returns (the taker ran on this thread), or, for a reader on
 * a worker, at the taker's acknowledgement of that batch (`freeOnEmitted` false: the worker frees it).
 */
export class BatchTexts {
  private readonly spare: TextSlot[] = [];
  private readonly inUse = new Map<SharedArrayBuffer, TextSlot>();

  constructor(private readonly freeOnEmitted = true) {}

  /** A slot for a new batch's texts. */
  take(): TextSlot {
    const slot = this.spare.pop() ?? new TextSlot();
    slot.clear();
    return slot;
  }

  /** The slot's batch is handed on: the slot stays in use until free() is given its buffer. */
  handedOn(slot: TextSlot): void {
    this.inUse.set(slot.buffer, slot);
  }

  /** The sink took the batch with these texts (null: it had none). */
  emitted(buffer: SharedArrayBuffer | null): void {
    if (this.freeOnEmitted) this.free(buffer);
  }

  /** The taker is done with the batch whose texts are in `buffer`: its slot takes the next batch. */
  free(buffer: SharedArrayBuffer | null): void {
    if (!buffer) return;
    const slot = this.inUse.get(buffer);
    if (!slot) return;
    this.inUse.delete(buffer);
    this.spare.push(slot);
  }
}
