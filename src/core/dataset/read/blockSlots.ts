// Where decompressed record blocks are kept: fixed slots of one SharedArrayBuffer, reused. A page of
// 100 scattered records decompresses ~4.2 MB of blocks; into fresh buffers that was ~4 ms of page
// faults and copies a page on this machine (the worker's blocks were copied out of the job's
// shared memory so that a cached block would not keep it alive). In a slot, a block is written
// once, by whichever thread decompresses it (dataset/read/inflateJob.ts), and read from there until
// it is evicted. Nothing outside BlockRecords holds a view of a slot: it copies what it returns.

/** A slot: a block of 32 records (older writers') is ~42 KB of text, of 16 ~21 KB; a larger one gets a buffer of its own. */
export const SLOT_BYTES = 64 * 1024;

export class BlockSlots {
  private memory: SharedArrayBuffer | null = null;
  private free: number[] = [];
  private readonly taken: Uint8Array;
  /** Counts the memories: a slot number means a place in one of them only. */
  generation = 0;
  /** Slots below this one have been written ahead in the current memory (or were taken before they could be). */
  private writtenUpTo = 0;

  /** Slots the file's blocks can ever fill (a small file has fewer blocks than slots): the most written ahead. */
  private readonly fillable: number;

  /** `count` slots, of which the file's `blocks` can fill at most that many. */
  constructor(
    readonly count: number,
    blocks = count,
  ) {
    this.fillable = Math.min(count, blocks);
    this.taken = new Uint8Array(count);
    this.reset();
  }

  /** The shared memory of the slots (allocated at the first use; untouched slots cost no RAM). */
  get shared(): SharedArrayBuffer {
    this.memory ??= new SharedArrayBuffer(this.count * SLOT_BYTES);
    return this.memory;
  }

  /**
   * Writes zeros over the first `count` slots' memory, the first a fresh process takes (free slots are
   * taken lowest first), so that its first pages do not pay for its pages: a fault is ~11 µs on the
   * slower VM of docs/performance.md, and a block of 32 records fills ~11 pages of its slot (of 16, ~6).
   */
  writeAhead(count: number): void {
    this.writeAheadMore(count - this.writtenUpTo);
  }

  /**
   * Writes ahead the next `count` slots not yet written (writeAhead's); false once every fillable slot has
   * been. The quiet write-ahead (query/writeAhead.ts) calls it a few slots at a time.
   */
  writeAheadMore(count: number): boolean {
    const memory = new Uint8Array(this.shared);
    const end = Math.min(this.fillable, this.writtenUpTo + Math.max(0, count));
    // A taken slot holds a block still read: only free ones are written.
    for (let slot = this.writtenUpTo; slot < end; slot++)
      if (this.taken[slot] === 0) memory.fill(0, slot * SLOT_BYTES, (slot + 1) * SLOT_BYTES);
    this.writtenUpTo = end;
    return this.writtenUpTo < this.fillable;
  }

  /**
   * The memory not yet written ahead, as bytes `from` to `to` of the current memory, for a thread
   * that writes it without changing what it holds (query/slotWriterWorker.ts); null when none is left.
   */
  unwritten(): { memory: SharedArrayBuffer; from: number; to: number; generation: number } | null {
    if (this.writtenUpTo >= this.fillable) return null;
    return { memory: this.shared, from: this.writtenUpTo * SLOT_BYTES, to: this.fillable * SLOT_BYTES, generation: this.generation };
  }

  /** Takes note that the memory unwritten() gave is written, unless the slots got new memory since. */
  writtenElsewhere(generation: number): void {
    if (generation === this.generation) this.writtenUpTo = this.fillable;
  }

  /** A free slot, or -1 when every one is taken. */
  take(): number {
    const slot = this.free.pop() ?? -1;
    if (slot >= 0) this.taken[slot] = 1;
    return slot;
  }

  /** Frees a taken slot; a slot given back twice is free once (two blocks must never share one). */
  give(slot: number): void {
    if (this.taken[slot] !== 1) return;
    this.taken[slot] = 0;
    this.free.push(slot);
  }

  /** The first `size` bytes of a slot. */
  view(slot: number, size: number): Buffer {
    return Buffer.from(this.shared, slot * SLOT_BYTES, size);
  }

  /** Every slot free (the cache dropped). */
  freeAll(): void {
    this.free = Array.from({ length: this.count }, (_, k) => this.count - 1 - k);
    this.taken.fill(0);
  }

  /** Every slot free, in new memory: after a read whose worker did not finish, which may still write into the slots it was given. */
  reset(): void {
    this.memory = null;
    this.writtenUpTo = 0;
    this.generation++;
    this.freeAll();
  }
}
