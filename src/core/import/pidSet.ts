// The PIDs an import has written so far, to catch a PID that comes back under another state (which
// rows in (STATE, PID) order allow, and which only the staging path can resolve: the row read last
// wins). A PID is 32 hex digits, i.e. 128 bits: four 32-bit words in an open-addressing table,
// 32 bytes a PID at most and no string kept alive (a JS Set of the strings costs ~3x that).

export function hex8(text: string, at: number): number {
  let n = 0;
  for (let i = at; i < at + 8; i++) {
    const c = text.charCodeAt(i);
    n = (n << 4) | (c <= 57 ? c - 48 : c - 55); // '0'-'9', 'A'-'F' (PIDs are checked and upper-cased)
  }
  return n;
}

export class PidSet {
  private words = new Int32Array(4 * 1024);
  private used = new Uint8Array(1024);
  private mask = 1023;
  size = 0;

  /** Adds the PID written at `text[at, at + 32)`; false when it was already there. */
  add(text: string, at: number): boolean {
    return this.insert(hex8(text, at), hex8(text, at + 8), hex8(text, at + 16), hex8(text, at + 24));
  }

  private insert(a: number, b: number, c: number, d: number): boolean {
    let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca77) ^ Math.imul(d, 0xc2b2ae3d), 0x27d4eb2f);
    h ^= h >>> 15;
    const { words, used, mask } = this;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      if (!used[slot]) {
        used[slot] = 1;
        words[4 * slot] = a;
        words[4 * slot + 1] = b;
        words[4 * slot + 2] = c;
        words[4 * slot + 3] = d;
        if (++this.size * 2 > mask) this.grow();
        return true;
      }
      if (words[4 * slot] === a && words[4 * slot + 1] === b && words[4 * slot + 2] === c && words[4 * slot + 3] === d) return false;
    }
  }

  private grow(): void {
    const { words, used } = this;
    this.words = new Int32Array(words.length * 2);
    this.used = new Uint8Array(used.length * 2);
    this.mask = used.length * 2 - 1;
    this.size = 0;
    for (let slot = 0; slot < used.length; slot++)
      if (used[slot]) this.insert(words[4 * slot]!, words[4 * slot + 1]!, words[4 * slot + 2]!, words[4 * slot + 3]!);
  }
}
