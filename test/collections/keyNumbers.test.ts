// numberKeys gives "one person a household" its numbers from HHID hashes: equal keys must get equal
// numbers and different keys different ones, over ranges large enough to use many buckets, with
// the keys a bucketing by top bits or a table keyed by zero could get wrong, and with keys set
// aside for the caller.
import { describe, expect, it } from 'vitest';
import { numberKeys } from '../../src/core/collections/keyNumbers';

/** A generator of 32-bit numbers that is the same every run (xorshift32). */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

/** Checks `numbers` against the partition of the keys by equality, outside the set-aside keys. */
function expectPartition(keys: Uint32Array, first: number, length: number, aside: Set<number>): void {
  const { numbers, count, setAside } = numberKeys(keys, first, length, aside);
  const numberOfKey = new Map<number, number>();
  const keyOfNumber = new Map<number, number>();
  const expectedAside: number[] = [];
  // Counted rather than asserted one by one: an expect a key made this test take seconds.
  let wrong = 0;
  for (let i = 0; i < length; i++) {
    const key = keys[first + i]!;
    if (aside.has(key)) {
      expectedAside.push(i);
      continue;
    }
    const n = numbers[i]!;
    if (!(n < count)) wrong++;
    if (!numberOfKey.has(key)) numberOfKey.set(key, n);
    else if (numberOfKey.get(key) !== n) wrong++;
    if (!keyOfNumber.has(n)) keyOfNumber.set(n, key);
    else if (keyOfNumber.get(n) !== key) wrong++;
  }
  expect(wrong).toBe(0);
  expect(count).toBe(numberOfKey.size);
  expect(Array.from(setAside)).toEqual(expectedAside);
}

describe('numberKeys', () => {
  it('numbers a range of 200,000 keys (many buckets) by equality, duplicates and extremes included', () => {
    const next = random(7);
    const keys = new Uint32Array(200_010);
    for (let i = 0; i < keys.length; i++) {
      // About a third repeat an earlier key; some are 0 and 0xffffffff.
      const r = next();
      keys[i] = i > 0 && r % 3 === 0 ? keys[r % i]! : r % 97 === 0 ? 0 : r % 101 === 0 ? 0xffffffff : next();
    }
    expectPartition(keys, 0, keys.length, new Set());
    // A range that starts inside the vector, with keys set aside (0 among them).
    expectPartition(keys, 10, 200_000, new Set([0, keys[500]!, keys[77_777]!, 123]));
  });

  it('numbers tiny and empty ranges', () => {
    expectPartition(Uint32Array.of(5, 5, 0, 5, 0xffffffff), 0, 5, new Set());
    expectPartition(Uint32Array.of(5, 5, 0, 5, 0xffffffff), 1, 3, new Set([5]));
    expectPartition(new Uint32Array(0), 0, 0, new Set([1]));
    const { numbers, count, setAside } = numberKeys(Uint32Array.of(9, 9, 9), 0, 3, [9]);
    expect([numbers.length, count, Array.from(setAside)]).toEqual([3, 0, [0, 1, 2]]);
  });
});
