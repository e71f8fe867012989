// A small number for each distinct 32-bit key of a vector's range (HHID hashes: one a household),
// for millions of keys. One hash table over a whole state outgrows the CPU's caches: California's
// 3.57 million people at 30M took 0.5-0.8 s, against 0.23-0.33 s here, and the gap grows with the
// state. Here the keys are first put in buckets by their top bits (two linear passes), and each
// bucket is numbered with a table of its own that stays in cache.
import { spread, uint32Set, uint32SetHas } from './uint32Table';

/** Keys a bucket holds on average: its table (2 slots a key, 8 bytes a slot: 64 KB) then fits in L2. */
const BUCKET_KEYS = 4096;
/** A table slot's value: 0 when empty, else the key's number + 1, or ASIDE. */
const ASIDE = 0xffffffff;

export interface KeyNumbers {
  /** For each index of the range (from `first`), its key's number; anything for a key set aside. */
  numbers: Uint32Array;
  /** How many numbers were given (0 .. count - 1). */
  count: number;
  /** The indexes (from `first`) whose keys were set aside, ascending. */
  setAside: Uint32Array;
}

/**
 * Numbers `keys[first .. first + length)`: equal keys get equal numbers, different keys different
 * ones (which number a key gets means nothing). A key of `setAside` gets none: its indexes are
 * listed for the caller to number.
 */
export function numberKeys(keys: Uint32Array, first: number, length: number, setAside: Iterable<number> = []): KeyNumbers {
  // Of the spreads, so the last pass never goes back to `keys` (a cache miss a distinct key).
  const asideSpreads = uint32Set(Array.from(setAside, spread));
  const anyAside = asideSpreads.some((x) => x !== 0);
  // At least one bit: a shift by 32 would be a shift by 0 in JavaScript.
  const bits = Math.max(1, Math.min(16, Math.ceil(Math.log2(Math.max(1, length / BUCKET_KEYS)))));
  const buckets = 1 << bits;
  const shift = 32 - bits;
  // Pass 1: each key's spread (held in `numbers` until it is numbered) and the buckets' sizes.
  const numbers = new Uint32Array(length);
  const starts = new Uint32Array(buckets + 1);
  for (let i = 0; i < length; i++) {
    const s = spread(keys[first + i]!);
    numbers[i] = s;
    starts[(s >>> shift) + 1] = starts[(s >>> shift) + 1]! + 1;
  }
  for (let b = 0; b < buckets; b++) starts[b + 1] = starts[b + 1]! + starts[b]!;
  // Pass 2: spreads and indexes in bucket order.
  const fill = starts.slice(0, buckets);
  const spreads = new Uint32Array(length);
  const indexes = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const s = numbers[i]!;
    const at = fill[s >>> shift]!;
    fill[s >>> shift] = at + 1;
    spreads[at] = s;
    indexes[at] = i;
  }
  // Each bucket numbered with its own table, keyed by the spread (its low bits pick the slot;
  // spreads are equal exactly when keys are, uint32Table.ts).
  let next = 0;
  const aside: number[] = [];
  let tableKeys = new Uint32Array(0);
  let tableValues = new Uint32Array(0);
  for (let b = 0; b < buckets; b++) {
    const from = starts[b]!;
    const to = starts[b + 1]!;
    const size = 2 ** Math.ceil(Math.log2(Math.max(16, (to - from) * 2)));
    if (size > tableKeys.length) {
      tableKeys = new Uint32Array(size);
      tableValues = new Uint32Array(size);
    } else tableValues.fill(0, 0, size);
    const mask = size - 1;
    for (let j = from; j < to; j++) {
      const s = spreads[j]!;
      let slot = s & mask;
      let value = tableValues[slot]!;
      while (value !== 0 && tableKeys[slot] !== s) {
        slot = (slot + 1) & mask;
        value = tableValues[slot]!;
      }
      if (value === 0) {
        value = anyAside && uint32SetHas(asideSpreads, s) ? ASIDE : ++next;
        tableKeys[slot] = s;
        tableValues[slot] = value;
      }
      if (value === ASIDE) aside.push(indexes[j]!);
      else numbers[indexes[j]!] = value - 1;
    }
  }
  return { numbers, count: next, setAside: Uint32Array.from(aside).sort() };
}
