// How a state's people fall into households, decided before any record is made: household h takes
// the people (generation slots) start(h) .. start(h+1)-1. Each household's size is the first draw
// of its own random stream (householdRng), so the layout costs one draw a household and the
// household itself can be made again later, on its own, from the same stream.
import { householdSize } from './people';
import { Kind, Prng } from './prng';

/** The random stream of the dataset's `serial`-th household (households numbered across states). */
export function householdRng(seed: number, serial: number): Prng {
  return new Prng(seed, serial, Kind.Household);
}

export class StateHouseholds {
  /** starts[h] = the first slot of household h; starts[count] = the state's people. */
  private readonly starts: Int32Array;
  readonly count: number;

  /** Households for `people` people, the first of them the dataset's `firstSerial`-th household. */
  constructor(seed: number, firstSerial: number, people: number) {
    if (people >= 2 ** 31) throw new Error('Too many people in one state for the household layout');
    let starts = new Int32Array(Math.max(16, Math.ceil(people / 2)));
    let h = 0;
    for (let slot = 0; slot < people; h++) {
      if (h + 1 >= starts.length) {
        const grown = new Int32Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[h] = slot;
      // A household never straddles states: its size is capped by the people the state has left.
      slot += Math.min(householdSize(householdRng(seed, firstSerial + h)), people - slot);
    }
    starts[h] = people;
    this.count = h;
    this.starts = starts.slice(0, h + 1);
  }

  start(h: number): number {
    return this.starts[h]!;
  }

  size(h: number): number {
    return this.starts[h + 1]! - this.starts[h]!;
  }

  /** The household holding `slot` (binary search: the last start at or before it). */
  householdOf(slot: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= slot) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
