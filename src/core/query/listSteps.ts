// The list controls of extensions.md over a state's matched positions, in its order: contact and
// exclusions narrow, then one person a household, then the sample. The list comes in PID order (a
// selection's order, whatever the file's: query/pidOrder.ts), so "the lowest PID" is the first of a
// household in the list and "PID order" is list order.
import { EARTH_RADIUS_MILES, type Sample } from '../../shared/listControls';
import { fieldIndex } from '../../shared/fields';
import type { ColumnVector, Dataset, StateRange } from '../dataset/dataset';

/** Keeps, in place, the first `n` positions of `list` that `keep` accepts; returns how many. */
export function keepWhere(list: Uint32Array, n: number, keep: (pos: number) => boolean): number {
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const pos = list[k]!;
    if (keep(pos)) list[kept++] = pos;
  }
  return kept;
}

/** A test "this record's field is empty", from its vector alone (a hashed field's empty string hashes to 0). */
function emptyTest(column: ColumnVector): (pos: number) => boolean {
  const data = column.data;
  if (column.encoding === 'hash') return (pos) => data[pos] === 0;
  if (column.encoding === 'dict') {
    const empty = new Uint8Array(column.dict!.length);
    column.dict!.forEach((v, code) => (empty[code] = v === '' ? 1 : 0));
    return (pos) => empty[data[pos]!] === 1;
  }
  return () => false;
}

/** A test "this record's field holds `value`", for a dictionary field (DPV, VACANT). */
function equalsTest(column: ColumnVector, value: string): (pos: number) => boolean {
  if (column.encoding !== 'dict') throw new Error(`${column.field} is not a dictionary field.`);
  const code = column.dict!.indexOf(value);
  const data = column.data;
  return code < 0 ? () => false : (pos) => data[pos] === code;
}

/** callable: a phone (PHONE, PHONE2 or PHONE3) that is not empty and whose paired DNC flag is empty. */
export function callableTest(dataset: Dataset, range: StateRange): (pos: number) => boolean {
  const pairs = [
    ['PHONE', 'DNC'],
    ['PHONE2', 'DNC2'],
    ['PHONE3', 'DNC3'],
  ].map(([phone, flag]) => ({
    noPhone: emptyTest(dataset.column(fieldIndex(phone!), range)),
    noFlag: emptyTest(dataset.column(fieldIndex(flag!), range)),
  }));
  return (pos) => pairs.some((p) => !p.noPhone(pos) && p.noFlag(pos));
}

/** deliverable: DPV is "Y" and VACANT is not "Y". */
export function deliverableTest(dataset: Dataset, range: StateRange): (pos: number) => boolean {
  const confirmed = equalsTest(dataset.column(fieldIndex('DPV'), range), 'Y');
  const vacant = equalsTest(dataset.column(fieldIndex('VACANT'), range), 'Y');
  return (pos) => confirmed(pos) && !vacant(pos);
}

/** Keeps the first (lowest-PID) position of each household; `households` numbers the state's positions from `first`. */
export function onePerHousehold(list: Uint32Array, n: number, households: Uint32Array, first: number): number {
  let most = 0;
  for (let i = 0; i < households.length; i++) if (households[i]! > most) most = households[i]!;
  const taken = new Uint8Array(most + 1);
  return keepWhere(list, n, (pos) => {
    const h = households[pos - first]!;
    if (taken[h] === 1) return false;
    taken[h] = 1;
    return true;
  });
}

/** mulberry32 over a seed folded to 32 bits: small, fast and the same on every machine. */
export function randomFrom(seed: number): () => number {
  let a = (seed >>> 0) ^ Math.imul(Math.floor(seed / 0x1_0000_0000) >>> 0, 0x9e3779b9);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The sample, in place: every n-th from the first, or `size` chosen uniformly by the seed, kept in PID order. */
export function applySample(list: Uint32Array, n: number, sample: Sample): number {
  if ('every' in sample) {
    let kept = 0;
    for (let k = 0; k < n; k += sample.every) list[kept++] = list[k]!;
    return kept;
  }
  if (sample.size >= n) return n;
  // A partial Fisher-Yates shuffle of the indexes picks `size` of them, each subset equally likely.
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  const random = randomFrom(sample.seed);
  for (let k = 0; k < sample.size; k++) {
    const j = k + Math.floor(random() * (n - k));
    const t = order[k]!;
    order[k] = order[j]!;
    order[j] = t;
  }
  const chosen = order.subarray(0, sample.size).sort();
  for (let k = 0; k < chosen.length; k++) list[k] = list[chosen[k]!]!;
  return chosen.length;
}

/** Each position's latitude and longitude in a state (pairs): from the coordinate vectors, or the records of an older file. */
export function stateCoordinates(dataset: Dataset, range: StateRange): Float64Array {
  const fromVectors = dataset.coordinates(range);
  if (fromVectors) return fromVectors;
  // A file written before coordinates had vectors: from the records (seconds for a large state).
  const coordinates = new Float64Array(range.count * 2);
  let k = 0;
  for (const [lat, lon] of dataset.rangeValues(range.first, range.count, [fieldIndex('LATITUDE'), fieldIndex('LONGITUDE')])) {
    coordinates[k++] = Number(lat);
    coordinates[k++] = Number(lon);
  }
  return coordinates;
}

const RADIANS = Math.PI / 180;

/** Keeps the positions within `miles` of a point (haversine great-circle distance, extensions.md's Earth radius). */
export function keepNear(
  list: Uint32Array,
  n: number,
  coordinates: Float64Array,
  first: number,
  near: { lat: number; lon: number; miles: number },
): number {
  const lat0 = near.lat * RADIANS;
  const lon0 = near.lon * RADIANS;
  const cosLat0 = Math.cos(lat0);
  // The haversine of the largest angle allowed: compare before the arcsine, which is monotonic.
  const maxHav = Math.sin(Math.min(Math.PI, near.miles / EARTH_RADIUS_MILES) / 2) ** 2;
  return keepWhere(list, n, (pos) => {
    const i = (pos - first) * 2;
    const lat = coordinates[i]! * RADIANS;
    const lon = coordinates[i + 1]! * RADIANS;
    const hav = Math.sin((lat - lat0) / 2) ** 2 + cosLat0 * Math.cos(lat) * Math.sin((lon - lon0) / 2) ** 2;
    return hav <= maxHav;
  });
}
