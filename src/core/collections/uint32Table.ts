// A map from 32-bit keys to non-negative numbers in two typed arrays (open addressing, linear
// probing), for millions of keys: a JavaScript Map costs an entry object a key and stops at 2²⁴.
const EMPTY = -1;

export class Uint32Table {
  private keys: Uint32Array;
  private values: Int32Array;
  size = 0;

  constructor(expected = 1 << 11) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(16, expected * 2)));
    this.keys = new Uint32Array(slots);
    this.values = new Int32Array(slots).fill(EMPTY);
  }

  /** The value of `key`, or -1 when it has none. */
  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let slot = spread(key) & mask; ; slot = (slot + 1) & mask) {
      const value = this.values[slot]!;
      if (value === EMPTY || this.keys[slot] === key) return value;
    }
  }

  /** Gives `key` (which has no value yet) the value `value` (≥ 0). */
  add(key: number, value: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let slot = spread(key) & mask;
    while (this.values[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.keys[slot] = key;
    this.values[slot] = value;
    this.size++;
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.values = new Int32Array(keys.length * 2).fill(EMPTY);
    this.size = 0;
    for (let s = 0; s < keys.length; s++) if (values[s] !== EMPTY) this.add(keys[s]!, values[s]!);
  }
}

/**
 * Mixes every bit of a key into the low ones (the keys are FNV-1a hashes, whose low bits are weak).
 * Each step (xor with a shift, multiply by an odd number) can be undone, so two keys are equal
 * exactly when their spreads are.
 */
export function spread(key: number): number {
  let h = Math.imul(key ^ (key >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A set of 32-bit keys in one Uint32Array (open addressing; 0 marks an empty slot, and the last
 * element says whether 0 itself is in): a typed array, so a cache of typed arrays can hold it.
 */
export function uint32Set(keys: Iterable<number>): Uint32Array {
  const all = [...keys];
  const slots = 2 ** Math.ceil(Math.log2(Math.max(16, all.length * 2)));
  const set = new Uint32Array(slots + 1);
  const mask = slots - 1;
  for (const key of all) {
    if (key === 0) {
      set[slots] = 1;
      continue;
    }
    let slot = spread(key) & mask;
    while (set[slot] !== 0 && set[slot] !== key) slot = (slot + 1) & mask;
    set[slot] = key;
  }
  return set;
}

export function uint32SetHas(set: Uint32Array, key: number): boolean {
  const mask = set.length - 2;
  if (key === 0) return set[mask + 1] === 1;
  for (let slot = spread(key) & mask; ; slot = (slot + 1) & mask) {
    const at = set[slot]!;
    if (at === key) return true;
    if (at === 0) return false;
  }
}
