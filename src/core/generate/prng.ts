// A small seeded PRNG (sfc32) and weighted sampling: generation must be deterministic for a given
// seed, so nothing here touches Math.random or the clock.
// Two upper-case hex digits for every byte value: hex() is on the hot path (every PID and HHID).
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** `digits` upper-case hex digits (a multiple of 2). */
  hex(digits: number): string {
    let out = '';
    for (let left = digits; left > 0; ) {
      let x = this.next();
      for (let b = 0; b < 4 && left > 0; b++, left -= 2, x >>>= 8) out += HEX_BYTE[x & 0xff];
    }
    return out;
  }

  /** `digits` decimal digits (leading zeros kept). */
  digits(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += String(this.int(10));
    return out;
  }
}

/** Walker's alias method: O(1) sampling from a fixed weighted list, however long. */
export class WeightedSampler<T> {
  private readonly prob: Float64Array;
  private readonly alias: Uint32Array;

  constructor(readonly items: readonly T[], weights: readonly number[]) {
    const n = items.length;
    if (n === 0 || weights.length !== n) throw new Error('WeightedSampler needs one weight per item');
    const total = weights.reduce((a, b) => a + b, 0);
    const scaled = weights.map((w) => (w * n) / total);
    this.prob = new Float64Array(n);
    this.alias = new Uint32Array(n);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length && large.length) {
      const s = small.pop()!;
      const l = large.pop()!;
      this.prob[s] = scaled[s]!;
      this.alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      (scaled[l]! < 1 ? small : large).push(l);
    }
    for (const i of [...small, ...large]) this.prob[i] = 1;
  }

  sample(rng: Prng): T {
    const i = rng.int(this.items.length);
    return this.items[rng.float() < this.prob[i]! ? i : this.alias[i]!]!;
  }
}

/** Samples a value from [value, weight] pairs. */
export function sampler<T>(pairs: ReadonlyArray<readonly [T, number]>): WeightedSampler<T> {
  return new WeightedSampler(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
}
