// Identifiers: PID (32 hex) and HHID (96 hex), upper case. Records must come out in (STATE, PID)
// order without sorting, so PIDs rise by construction within a state: the i-th of a state's N PIDs
// gets a 48-bit prefix inside the i-th of N equal slices of the prefix space (random within it), so
// prefixes strictly increase with i and still look random. The next 32 bits are a bijective mix of
// the PID's dataset-wide number, so no two PIDs in a dataset are equal, across states too. Which
// person gets the i-th PID is the generator's keyed permutation (generateRecords.ts): nothing in a
// PID or its rank follows household or place.
import { hash32, type Prng } from './prng';

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));
const PREFIX_SPACE = 2 ** 48;

/** Eight upper-case hex digits of an unsigned 32-bit integer. */
export function hex8(x: number): string {
  return HEX2[x >>> 24]! + HEX2[(x >>> 16) & 255]! + HEX2[(x >>> 8) & 255]! + HEX2[x & 255]!;
}

export function randomHex(rng: Prng, groupsOf8: number): string {
  let out = '';
  for (let i = 0; i < groupsOf8; i++) out += hex8(rng.next());
  return out;
}

export class PidSequence {
  private readonly step: number;
  constructor(count: number) {
    if (count > PREFIX_SPACE) throw new Error('Too many people in one state for the PID scheme');
    this.step = PREFIX_SPACE / count;
  }

  /** The state's `index`-th PID (0-based), whose dataset-wide number is `serial`. */
  pid(rng: Prng, index: number, serial: number): string {
    // Integer slot bounds, so neighbouring slots never share a prefix: [floor(i*s), floor((i+1)*s)).
    const start = Math.floor(index * this.step);
    const prefix = start + Math.floor(rng.float() * (Math.floor((index + 1) * this.step) - start));
    const hi = Math.floor(prefix / 4294967296);
    const lo = prefix - hi * 4294967296;
    return (
      HEX2[hi >>> 8]! +
      HEX2[hi & 255]! +
      hex8(lo) +
      hex8(hash32((serial ^ 0x6b43a9b5) >>> 0)) +
      hex8(rng.next()) +
      hex8(rng.next()).slice(4)
    );
  }
}
