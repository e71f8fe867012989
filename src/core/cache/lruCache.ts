// A small LRU keyed by text with a byte budget, for either engine: recent audiences keep their
// matched positions (or PIDs, counts, bookmarks) so that paging through them costs a slice, not a rescan.
export class LruCache<V extends { bytes: number }> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntries = 256,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (value.bytes > this.maxBytes || this.maxBytes === 0) return;
    const old = this.entries.get(key);
    if (old) this.bytes -= old.bytes;
    this.entries.delete(key);
    this.entries.set(key, value);
    this.bytes += value.bytes;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.entries.delete(k);
      this.bytes -= v.bytes;
    }
  }
}
