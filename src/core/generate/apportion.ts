// How many of a dataset's people live in each state: the states' adult shares, apportioned by
// largest remainder in integer arithmetic, so the counts add up to `rows` exactly and never depend
// on floating-point rounding. Ties go to the state that sorts first.
import { STATE_ADULTS } from './data/stateAdults';

/** State codes in the order records are written (plain string order, as DatasetWriter wants). */
export const STATE_CODES: readonly string[] = Object.keys(STATE_ADULTS).sort();

export function apportion(rows: number): Array<[state: string, people: number]> {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`rows must be a non-negative integer, got ${rows}`);
  const adults = STATE_CODES.map((s) => STATE_ADULTS[s]![0]);
  const total = adults.reduce((a, b) => a + b, 0);
  // rows * adults stays below 2^53 for any rows up to ~2.9e11.
  const counts = adults.map((a) => Math.floor((rows * a) / total));
  const remainders = adults.map((a, i) => {
    let r = rows * a - counts[i]! * total;
    // The division can round up across an integer; the integer remainder tells, and fixes it.
    while (r < 0) {
      counts[i]!--;
      r += total;
    }
    return r;
  });
  let left = rows - counts.reduce((a, b) => a + b, 0);
  const order = STATE_CODES.map((_, i) => i).sort((i, j) => remainders[j]! - remainders[i]! || i - j);
  for (let k = 0; left > 0; k++, left--) counts[order[k]!]!++;
  return STATE_CODES.map((s, i) => [s, counts[i]!]);
}
