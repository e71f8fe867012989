// LATITUDE and LONGITUDE as vectors, for `near` (and a ZIP's centre): without them the first `near`
// in a state read every record of the state (7.8 s for California at 10M records, minutes nationally).
// The writer stores each as millionths of a degree in an i32 ('micro', 4 bytes a person, ~3.4
// compressed) when every value is exactly its millionths over a million, which the generator's six
// decimals always are, else as the doubles themselves ('value', f64, ~6.5 compressed). Either way a
// reader gets back exactly the number the record's text holds. docs/dataset-format.md, "Vectors".
import type { BuiltColumn } from './columnVector';
import type { Vector } from './columnVector';

const MILLION = 1e6;
const I32_MAX = 0x7fffffff;

/** A coordinate column as stored: in millionths when that is exact for every value, else unchanged. */
export function asMillionths(column: BuiltColumn): BuiltColumn {
  const values = column.data;
  const micro = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const m = Math.round(v * MILLION);
    // Division of two integers is correctly rounded, so m / 1e6 is the double nearest the decimal:
    // the number a record's text parses to whenever that text has at most six decimals.
    if (!(Math.abs(m) <= I32_MAX) || m / MILLION !== v) return column;
    micro[i] = m;
  }
  return { ...column, encoding: 'micro', kind: 'i32', data: micro, dict: null };
}

/** Writes the coordinates of a vector's values [from, to) into every other slot of `out`, starting at `at`. */
export function copyCoordinates(encoding: string, values: Vector, from: number, to: number, out: Float64Array, at: number): void {
  if (encoding === 'micro') for (let i = from, j = at; i < to; i++, j += 2) out[j] = values[i]! / MILLION;
  else for (let i = from, j = at; i < to; i++, j += 2) out[j] = values[i]!;
}
