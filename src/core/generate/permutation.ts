// A keyed pseudo-random permutation of 0..n-1 that needs no memory: which generated person takes a
// state's i-th PID. A balanced Feistel network on the smallest even number of bits that covers n,
// walked again while it lands outside 0..n-1 (cycle walking: it stays a bijection on 0..n-1, and
// the domain is under 4n, so under four steps on average). Six rounds of a keyed 32-bit hash mix
// every bit of the input into every bit of the output, so neighbouring inputs land far apart.
import { hash32 } from './prng';

const ROUNDS = 6;

export class KeyedPermutation {
  private readonly half: number;
  private readonly mask: number;
  private readonly keys: Uint32Array;

  /** A permutation of 0..n-1 (n up to 2^32) chosen by `key`: ROUNDS unsigned 32-bit round keys. */
  constructor(
    readonly n: number,
    key: ArrayLike<number>,
  ) {
    if (!Number.isSafeInteger(n) || n < 1 || n > 2 ** 32) throw new Error(`A permutation needs 1 to 2^32 items, got ${n}`);
    if (key.length < ROUNDS) throw new Error(`A permutation needs ${ROUNDS} round keys`);
    let bits = 2;
    while (2 ** bits < n) bits += 2;
    this.half = bits / 2;
    this.mask = 2 ** this.half - 1;
    this.keys = Uint32Array.from({ length: ROUNDS }, (_, r) => key[r]! >>> 0);
  }

  /** The image of `i` (0 <= i < n). */
  at(i: number): number {
    let x = i;
    do x = this.step(x);
    while (x >= this.n);
    return x;
  }

  /** The `j` whose image is `y` (0 <= y < n): the rounds run backwards, walking the same cycle. */
  inverse(y: number): number {
    let x = y;
    do x = this.stepBack(x);
    while (x >= this.n);
    return x;
  }

  private step(x: number): number {
    const size = this.mask + 1;
    let left = Math.floor(x / size);
    let right = x % size;
    for (let r = 0; r < ROUNDS; r++) {
      const next = (left ^ (hash32((right ^ this.keys[r]!) >>> 0) & this.mask)) >>> 0;
      left = right;
      right = next;
    }
    return left * size + right;
  }

  private stepBack(x: number): number {
    const size = this.mask + 1;
    let left = Math.floor(x / size);
    let right = x % size;
    for (let r = ROUNDS - 1; r >= 0; r--) {
      const previous = (right ^ (hash32((left ^ this.keys[r]!) >>> 0) & this.mask)) >>> 0;
      right = left;
      left = previous;
    }
    return left * size + right;
  }
}
