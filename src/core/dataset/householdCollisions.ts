// Which HHID hashes stand for more than one household in a state, found by the writer while it has
// the HHID strings, so that a reader can number a state's households from the HHID vector alone
// (docs/dataset-format.md, "Household hashes"). Without this, "one person a household" read every
// record of the state for its HHID: 11 s for California in a 10M file, minutes in a national one.
//
// The vector holds a 32-bit hash (stringHash), and a state of n households has about n² / 2³³
// pairs of households sharing one (about 30 at 500,000, 17,000 at 12 million). The writer keeps,
// for each distinct hash of the state, a 64-bit fingerprint of the first HHID it saw with it; a
// later HHID with the same hash and another fingerprint is a second household, and the hash goes
// on the list. Two HHIDs that differ but agree on all 96 bits would be missed: for 12 million
// households in one state that chance is about 10⁻¹⁵.
import { stringHash } from './columnVector';
import { Uint32Table } from './uint32Table';

/** Meta key of the list: a JSON array of the colliding hashes, ascending. */
export const HHID_COLLISIONS_KEY = 'hhid_collisions';

/** Two 32-bit hashes of `value` independent of stringHash (seeded multiply-xorshift, then a finaliser). */
function fingerprint(value: string, out: Uint32Array): void {
  let a = 0x9747b28c ^ value.length;
  let b = 0x1b873593 ^ value.length;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x5bd1e995);
    a ^= a >>> 15;
    b = Math.imul(b ^ c, 0xcc9e2d51);
    b ^= b >>> 13;
  }
  out[0] = finalise(a);
  out[1] = finalise(b);
}

function finalise(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class HouseholdCollisions {
  private readonly found = new Set<number>();
  private state: string | null = null;
  /** The state's distinct hashes, each to its place in `prints`. */
  private seen = new Uint32Table();
  /** Two words a distinct hash: the fingerprint of the first HHID seen with it. */
  private prints = new Uint32Array(1 << 12);
  private readonly print = new Uint32Array(2);

  /** One record's HHID; records come state by state (collisions only matter within a state). */
  add(state: string, hhid: string): void {
    if (state !== this.state) {
      this.state = state;
      this.seen = new Uint32Table();
    }
    const hash = stringHash(hhid);
    fingerprint(hhid, this.print);
    const at = this.seen.get(hash);
    if (at >= 0) {
      if (this.prints[2 * at] !== this.print[0] || this.prints[2 * at + 1] !== this.print[1]) this.found.add(hash);
      return;
    }
    const next = this.seen.size;
    if (2 * next + 2 > this.prints.length) {
      const wider = new Uint32Array(this.prints.length * 2);
      wider.set(this.prints);
      this.prints = wider;
    }
    this.prints.set(this.print, 2 * next);
    this.seen.add(hash, next);
  }

  /** The hashes shared by two households of one state (in any state), ascending. */
  collisions(): number[] {
    return [...this.found].sort((a, b) => a - b);
  }
}

/** The list as the meta entry stores it; null when the entry is absent (a file written before it). */
export function parseCollisions(text: string | undefined): Set<number> | null {
  if (text === undefined) return null;
  const list: unknown = JSON.parse(text);
  if (!Array.isArray(list) || !list.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffffffff))
    throw new Error('not a list of 32-bit hashes');
  return new Set(list as number[]);
}
