// The vectors an open dataset keeps in memory, within a byte budget. A field's values stay loaded
// after its first use, so later counts scan memory; without a bound, an analyst who tries many
// fields over many states of a national file would grow the process until the machine swaps
// (the vectors of every field of a 250M-record file are ~100 GB). Past the budget the least recently used fields
// are dropped whole (their memory is freed once no running query holds them) and read again from
// the file when next used: the same answers, at the cost of a first use. Not cache/lruCache.ts:
// an entry here grows as its chunks load, and the one being read stays even when it alone passes
// the budget, where that cache refuses a value larger than its budget.
export interface KeptVector {
  /** Bytes of memory the entry holds (its loaded values and its dictionary's text). */
  bytes: number;
}

export class KeptVectors<T extends KeptVector> {
  /** In order of use, least recent first (a Map iterates in insertion order). */
  private readonly entries = new Map<number, T>();
  private total = 0;
  /** Fields dropped to stay within the budget, since the dataset opened. */
  dropped = 0;

  constructor(readonly budget: number) {
    if (!(budget > 0)) throw new Error(`A vector memory budget of ${budget} bytes is not one.`);
  }

  /** Bytes the kept entries hold. */
  get bytes(): number {
    return this.total;
  }

  /** The entry of field `index`, now the most recently used; undefined when it is not kept. */
  use(index: number): T | undefined {
    const entry = this.entries.get(index);
    if (entry) {
      this.entries.delete(index);
      this.entries.set(index, entry);
    }
    return entry;
  }

  /** The entry of field `index`, leaving the order of use as it is (a background check reads it). */
  peek(index: number): T | undefined {
    return this.entries.get(index);
  }

  /** Keeps `entry` as field `index`'s, the most recently used; others go while over the budget. */
  add(index: number, entry: T): void {
    if (this.entries.has(index)) throw new Error(`Field ${index} already has a kept vector.`);
    this.entries.set(index, entry);
    this.total += entry.bytes;
    this.trim(index);
  }

  /** Field `index`'s entry now holds `bytes` more; other fields go while over the budget. */
  grow(index: number, bytes: number): void {
    const entry = this.entries.get(index);
    if (!entry) throw new Error(`Field ${index} has no kept vector to grow.`);
    entry.bytes += bytes;
    this.total += bytes;
    this.trim(index);
  }

  /** Drops every entry (the dataset closed). */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /**
   * Drops the least recently used entries but `keep` (the one being read: a single field larger than
   * the budget is still read, alone) until the total fits.
   */
  private trim(keep: number): void {
    for (const [index, entry] of this.entries) {
      if (this.total <= this.budget) return;
      if (index === keep) continue;
      this.entries.delete(index);
      this.total -= entry.bytes;
      this.dropped++;
    }
  }
}
