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
//
// The writer also says which household of a listed hash each record is, so that a reader need not
// read those records (~80,000 scattered records, 8-16 s, in a national file's California): the
// records of the first HHID seen with the hash are household 0 and are not written down; each
// later HHID (told apart by its fingerprint) is household 1, 2, ... of the hash, and its records'
// positions are listed with that number.
import { stringHash } from '../codec/columnVector';
import { Uint32Table } from '../../collections/uint32Table';

/** Meta key of the list: a JSON array of the colliding hashes, ascending. */
export const HHID_COLLISIONS_KEY = 'hhid_collisions';
/**
 * Meta key of the records of the second and later households of listed hashes: a JSON array of
 * [position, household] pairs, positions ascending, household ≥ 1 (see above).
 */
export const HHID_SPLITS_KEY = 'hhid_splits';

/**
 * Two 32-bit hashes of `value` independent of stringHash (seeded multiply-xorshift, then a
 * finaliser), into out[at] and out[at + 1].
 */
export function fingerprint(value: string, out: Uint32Array, at = 0): void {
  let a = 0x9747b28c ^ value.length;
  let b = 0x1b873593 ^ value.length;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x5bd1e995);
    a ^= a >>> 15;
    b = Math.imul(b ^ c, 0xcc9e2d51);
    b ^= b >>> 13;
  }
  out[at] = finalise(a);
  out[at + 1] = finalise(b);
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
  /** For each hash of the state with more than one HHID: the fingerprints of its second, third… HHIDs. */
  private later = new Map<number, number[]>();
  /** [position, household] of the records of later households, flat. */
  private readonly split: number[] = [];

  /**
   * The HHID of the record at `position`; records come state by state, in ascending positions
   * (collisions only matter within a state).
   */
  add(state: string, hhid: string, position: number): void {
    fingerprint(hhid, this.print);
    this.addFingerprinted(state, stringHash(hhid), this.print, 0, position);
  }

  /**
   * add() for a caller that has the HHID's stringHash and its fingerprint (print[at], print[at + 1])
   * already: the import works them out on its reading threads (recordExtras.ts).
   */
  addFingerprinted(state: string, hash: number, print: Uint32Array, at: number, position: number): void {
    if (state !== this.state) {
      this.state = state;
      this.seen = new Uint32Table();
      this.later = new Map();
    }
    this.print[0] = print[at]!;
    this.print[1] = print[at + 1]!;
    const found = this.seen.get(hash);
    if (found >= 0) {
      if (this.prints[2 * found] !== this.print[0] || this.prints[2 * found + 1] !== this.print[1]) {
        this.found.add(hash);
        this.split.push(position, this.laterHousehold(hash));
      }
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

  /** Which later household (1, 2, …) of `hash` the current fingerprint is, a new one if none yet. */
  private laterHousehold(hash: number): number {
    let prints = this.later.get(hash);
    if (!prints) this.later.set(hash, (prints = []));
    for (let k = 0; k < prints.length; k += 2) if (prints[k] === this.print[0] && prints[k + 1] === this.print[1]) return k / 2 + 1;
    prints.push(this.print[0]!, this.print[1]!);
    return prints.length / 2;
  }

  /** The hashes shared by two households of one state (in any state), ascending. */
  collisions(): number[] {
    return [...this.found].sort((a, b) => a - b);
  }

  /** The records of later households: [position, household] pairs, positions ascending. */
  splits(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (let k = 0; k < this.split.length; k += 2) out.push([this.split[k]!, this.split[k + 1]!]);
    return out;
  }
}

/** The later households' records as the meta entry stores them, position to household; null when absent. */
export function parseSplits(text: string | undefined): Map<number, number> | null {
  if (text === undefined) return null;
  const list: unknown = JSON.parse(text);
  const pair = (p: unknown) =>
    Array.isArray(p) && p.length === 2 && Number.isSafeInteger(p[0]) && p[0] >= 0 && Number.isSafeInteger(p[1]) && p[1] >= 1;
  if (!Array.isArray(list) || !list.every(pair)) throw new Error('not a list of [position, household] pairs');
  return new Map(list as Array<[number, number]>);
}

/** The list as the meta entry stores it; null when the entry is absent from the file's meta. */
export function parseCollisions(text: string | undefined): Set<number> | null {
  if (text === undefined) return null;
  const list: unknown = JSON.parse(text);
  if (!Array.isArray(list) || !list.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffffffff))
    throw new Error('not a list of 32-bit hashes');
  return new Set(list as number[]);
}

/**
 * A file's two lists, read from its meta when first asked: null for a list the file does not have
 * (its meta entry is absent) or that this version cannot read (it is under meta's checksum, so it is the
 * writer's; households then come from the records, and stderr says why).
 */
export class HouseholdLists {
  private collisionList: ReadonlySet<number> | null | undefined;
  private splitList: ReadonlyMap<number, number> | null | undefined;

  constructor(
    private readonly meta: Readonly<Record<string, string>>,
    private readonly path: string,
  ) {}

  collisions(): ReadonlySet<number> | null {
    if (this.collisionList === undefined)
      this.collisionList = this.read(HHID_COLLISIONS_KEY, parseCollisions, 'the list of household hash collisions');
    return this.collisionList;
  }

  splits(): ReadonlyMap<number, number> | null {
    if (this.splitList === undefined) this.splitList = this.read(HHID_SPLITS_KEY, parseSplits, 'the list of split households');
    return this.splitList;
  }

  private read<T>(key: string, parse: (text: string | undefined) => T | null, what: string): T | null {
    try {
      return parse(this.meta[key]);
    } catch (e) {
      console.error(`${this.path}: ${what} is unreadable (${(e as Error).message}); households come from the records.`);
      return null;
    }
  }
}
