// Seeded randomness for the generator: the same seed must give byte-identical datasets, so nothing
// here reads Math.random or the clock. sfc32 is small, fast in JS (32-bit integer ops only) and passes
// PractRand far beyond the few hundred million draws a large dataset needs.

const TWO_32 = 4294967296;

/** Families of random streams (Prng's `kind`): one stream per household, per person, per state's PID order. */
export const Kind = { Household: 1, Person: 2, PidOrder: 3 } as const;

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /**
   * `seed` may be any finite number; `stream` (an unsigned 32-bit integer) gives independent
   * sequences for one seed, and `kind` independent families of streams: the generator keys one
   * stream per household and one per person (Kind), so that any of them can be made on its own.
   */
  constructor(seed: number, stream = 0, kind = 0) {
    const lo = seed >>> 0;
    const hi = Math.floor(Math.abs(seed) / TWO_32) >>> 0;
    this.a = (0x9e3779b9 ^ hi) | 0;
    this.b = (0x243f6a88 ^ Math.imul(stream, 0x85ebca6b)) | 0;
    this.c = (0xb7e15162 ^ (seed < 0 ? 0x5bd1e995 : 0) ^ Math.imul(kind, 0xcc9e2d51)) | 0;
    this.d = lo | 0;
    for (let i = 0; i < 16; i++) this.next();
  }

  /** A uniform unsigned 32-bit integer. */
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
    return this.next() / TWO_32;
  }

  /** Uniform integer in [0, n), n <= 2^32. */
  int(n: number): number {
    return Math.floor((this.next() / TWO_32) * n);
  }

  /** Uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + Math.floor((this.next() / TWO_32) * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p * TWO_32;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor((this.next() / TWO_32) * items.length)]!;
  }

  /** Standard normal (Box-Muller; the second value is dropped to keep the stream simple). */
  normal(): number {
    const u = (this.next() + 1) / (TWO_32 + 1);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos((2 * Math.PI * this.next()) / TWO_32);
  }
}

/**
 * Walker's alias method: O(1) draws from a fixed weighted list, however long. One 32-bit draw picks
 * both the column and the coin for short lists; long lists (names) spend a second draw on the coin.
 */
export class AliasTable {
  readonly size: number;
  private readonly prob: Float64Array;
  private readonly alias: Int32Array;

  constructor(weights: ArrayLike<number>) {
    const n = weights.length;
    let total = 0;
    for (let i = 0; i < n; i++) total += weights[i]!;
    if (n === 0 || !(total > 0)) throw new Error('AliasTable needs at least one positive weight');
    this.size = n;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const scaled = new Float64Array(n);
    const small: number[] = [];
    const large: number[] = [];
    for (let i = 0; i < n; i++) {
      scaled[i] = (weights[i]! * n) / total;
      (scaled[i]! < 1 ? small : large).push(i);
    }
    while (small.length && large.length) {
      const s = small.pop()!;
      const l = large.pop()!;
      this.prob[s] = scaled[s]!;
      this.alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      (scaled[l]! < 1 ? small : large).push(l);
    }
    for (const i of large) this.prob[i] = 1;
    for (const i of small) this.prob[i] = 1;
  }

  /** An index drawn with probability proportional to its weight. */
  draw(rng: Prng): number {
    if (this.size <= 4096) {
      const u = (rng.next() / TWO_32) * this.size;
      const i = u | 0;
      return u - i < this.prob[i]! ? i : this.alias[i]!;
    }
    const i = Math.floor((rng.next() / TWO_32) * this.size);
    return rng.next() / TWO_32 < this.prob[i]! ? i : this.alias[i]!;
  }
}

/** Draws values from [value, weight] pairs. */
export class Weighted<T> {
  private readonly table: AliasTable;
  readonly values: readonly T[];
  constructor(pairs: ReadonlyArray<readonly [T, number]>) {
    this.values = pairs.map((p) => p[0]);
    this.table = new AliasTable(pairs.map((p) => p[1]));
  }
  draw(rng: Prng): T {
    return this.values[this.table.draw(rng)]!;
  }
}

/** A 32-bit integer hash (lowbias32, a bijection): stable, seed-free values per ZIP or county. */
export function hash32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** The standard normal CDF (Abramowitz-Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(z)) / Math.SQRT2);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(z * z) / 2);
  return z >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

/** The inverse standard normal CDF (Acklam's rational approximation), for building lookup tables. */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
