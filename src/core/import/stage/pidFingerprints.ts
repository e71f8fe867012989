// Whether an import saw a PID twice, answered once every row is read, in 8 bytes a row: each PID
// leaves a 53-bit fingerprint; equal PIDs always collide, different ones by chance alone, and then
// the import does the exact PID sort it would do for a real repeat. docs/import.md, "Memory".

export function hex8(text: string, at: number): number {
  let n = 0;
  for (let i = at; i < at + 8; i++) {
    const c = text.charCodeAt(i);
    n = (n << 4) | (c <= 57 ? c - 48 : c - 55); // '0'-'9', 'A'-'F' (PIDs are checked and upper-cased)
  }
  return n;
}

/** A 53-bit fingerprint of a PID given as its four 32-bit words (exact in a float64). */
function pidFingerprint(a: number, b: number, c: number, d: number): number {
  return (murmur(a, b, c, d, 0x9747b28c) >>> 0) * 0x200000 + (murmur(a, b, c, d, 0x2545f491) >>> 11);
}

// MurmurHash3 (x86, 32-bit) of four words: every input bit reaches every output bit, so PIDs with
// a structure (counting up, differing in one digit) spread like random ones.
function murmur(a: number, b: number, c: number, d: number, seed: number): number {
  let h = step(step(step(step(seed, a), b), c), d);
  h ^= 16;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** One word into the hash (no array per call: this runs for every row). */
function step(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Rows are kept in blocks of this many: no doubling, so no spare room and no copy as they grow. */
const BLOCK = 1 << 16;

/** The fingerprints of the PIDs an import has written so far. */
export class PidFingerprints {
  private readonly blocks: Float64Array[] = [];
  private used = BLOCK;
  count = 0;

  /** Adds the PID written at `text[at, at + 32)`. */
  add(text: string, at: number): void {
    if (this.used === BLOCK) {
      this.blocks.push(new Float64Array(BLOCK));
      this.used = 0;
    }
    this.blocks[this.blocks.length - 1]![this.used++] = pidFingerprint(
      hex8(text, at),
      hex8(text, at + 8),
      hex8(text, at + 16),
      hex8(text, at + 24),
    );
    this.count++;
  }

  /**
   * True when two PIDs added may be the same one: always if they are, by chance (rarely) if not.
   * Asked once: the fingerprints are let go once gathered, then sorted to compare neighbours.
   */
  mayRepeat(): boolean {
    const all = new Float64Array(this.count);
    const last = this.blocks.length - 1;
    this.blocks.forEach((block, k) => all.set(k === last ? block.subarray(0, this.used) : block, k * BLOCK));
    this.blocks.length = 0;
    this.used = BLOCK;
    this.count = 0;
    all.sort();
    for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) return true;
    return false;
  }
}
