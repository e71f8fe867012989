// A household's address inside its ZIP area: USPS-style street parts (upper case, standard suffix
// and unit abbreviations), ZIP+4 and delivery codes, census tract and block, coordinates near the
// ZIP's point. Street names mix common US street names, numbered streets and surnames.
import type { ZipArea } from './geography';
import type { Names } from './names';
import { hash32, type Prng, Weighted } from './prng';
import { DIGITS2, DIGITS4, LETTERS, NUMBER_TEXT } from './strings';

const STREET_WORDS = [
  'MAIN',
  'PARK',
  'OAK',
  'PINE',
  'MAPLE',
  'CEDAR',
  'ELM',
  'WASHINGTON',
  'LAKE',
  'HILL',
  'WALNUT',
  'CHESTNUT',
  'LINCOLN',
  'JEFFERSON',
  'FRANKLIN',
  'JACKSON',
  'MADISON',
  'RIDGE',
  'CHURCH',
  'MILL',
  'SPRING',
  'HIGHLAND',
  'SUNSET',
  'RIVER',
  'FOREST',
  'MEADOW',
  'WILLOW',
  'CHERRY',
  'VALLEY',
  'SCHOOL',
  'CENTER',
  'MARKET',
  'BROADWAY',
  'COLLEGE',
  'PROSPECT',
  'DOGWOOD',
  'HICKORY',
  'BIRCH',
  'SYCAMORE',
  'LAUREL',
  'MAGNOLIA',
  'HOLLY',
  'LOCUST',
  'POPLAR',
  'SPRUCE',
  'ASPEN',
  'JUNIPER',
  'WINDSOR',
  'UNION',
  'LIBERTY',
  'MEADOWBROOK',
  'LAKEVIEW',
  'HILLCREST',
  'WOODLAND',
  'FAIRVIEW',
  'COUNTRY CLUB',
  'OLD MILL',
  'PLEASANT',
  'GRANT',
  'ADAMS',
  'MONROE',
  'KING',
];
const ORDINALS = Array.from({ length: 99 }, (_, i) => {
  const n = i + 1;
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? 'TH' : (['TH', 'ST', 'ND', 'RD'][n % 10] ?? 'TH')}`;
});
const STREET_TYPES = new Weighted([
  ['ST', 25],
  ['DR', 15],
  ['AVE', 15],
  ['RD', 14],
  ['LN', 8],
  ['CT', 7],
  ['WAY', 4],
  ['BLVD', 3],
  ['PL', 3],
  ['CIR', 3],
  ['TER', 1.5],
  ['TRL', 1.5],
  ['LOOP', 1],
  ['PKWY', 1],
  ['HWY', 1],
] as const);
const PREDIRS = new Weighted([
  ['', 86],
  ['N', 3.5],
  ['S', 3.5],
  ['E', 3],
  ['W', 3],
  ['NE', 0.25],
  ['NW', 0.25],
  ['SE', 0.25],
  ['SW', 0.25],
] as const);
const POSTDIRS = new Weighted([
  ['', 95],
  ['N', 1],
  ['S', 1],
  ['E', 1],
  ['W', 1],
  ['NE', 0.25],
  ['NW', 0.25],
  ['SE', 0.25],
  ['SW', 0.25],
] as const);
const UNIT_TYPES = new Weighted([
  ['APT', 75],
  ['UNIT', 15],
  ['STE', 3],
  ['#', 7],
] as const);
const GEOLEVELS = new Weighted([
  ['B', 88],
  ['T', 8],
  ['Z', 4],
] as const);
const ROUTES = [
  ...Array.from({ length: 80 }, (_, i) => `C${DIGITS4[i + 1]!.slice(1)}`),
  ...Array.from({ length: 20 }, (_, i) => `R${DIGITS4[i + 1]!.slice(1)}`),
];
const BLOCKS = Array.from({ length: 5 * 60 }, (_, i) => String(1 + Math.floor(i / 60)) + DIGITS4[i % 60]!.slice(1));
const TRACT_SUFFIXES = ['00', '01', '02', '03', '04'];
const tracts: string[] = [];
/** Tract `base` (4 digits) with suffix `k` (00-04), built once. */
const tractText = (base: number, k: number) => (tracts[base * 5 + k] ??= DIGITS4[base]! + TRACT_SUFFIXES[k]!);

export interface Address {
  addrId: string;
  line: string;
  house: string;
  predir: string;
  street: string;
  strtype: string;
  postdir: string;
  apttype: string;
  aptnb: string;
  z4: string;
  dpc: string;
  z4type: string;
  crte: string;
  dpv: string;
  vacant: string;
  geolevel: string;
  latitude: number;
  longitude: number;
  tract: string;
  block: string;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

function houseNumber(rng: Prng): number {
  const u = rng.float();
  return u < 0.1 ? rng.between(1, 99) : u < 0.45 ? rng.between(100, 999) : u < 0.9 ? rng.between(1000, 9999) : rng.between(10000, 29999);
}

/** A unit number: plain (12), floor and unit (305) or a letter (B). */
function unitNumber(rng: Prng): string {
  const u = rng.float();
  return u < 0.4
    ? NUMBER_TEXT[rng.between(1, 40)]!
    : u < 0.85
      ? NUMBER_TEXT[rng.between(1, 15) * 100 + rng.between(1, 24)]!
      : LETTERS[rng.int(8)]!;
}

/** `serial` numbers households in the dataset: it makes ADDRID unique. */
export function drawAddress(rng: Prng, names: Names, zip: ZipArea, dwelling: 'S' | 'M' | 'T', serial: number): Address {
  const house = houseNumber(rng);
  const s = rng.float();
  const street =
    s < 0.12
      ? ORDINALS[Math.min(98, Math.floor(-Math.log(1 - rng.float()) * 12))]!
      : s < 0.6
        ? rng.pick(STREET_WORDS)
        : names.last.draw(rng);
  const predir = PREDIRS.draw(rng);
  const strtype = STREET_TYPES.draw(rng);
  const postdir = predir ? '' : POSTDIRS.draw(rng);
  const hasUnit = dwelling === 'M' || (dwelling === 'T' && rng.chance(0.5));
  const apttype = !hasUnit ? '' : dwelling === 'T' ? 'LOT' : UNIT_TYPES.draw(rng);
  const aptnb = hasUnit ? unitNumber(rng) : '';
  const houseText = NUMBER_TEXT[house]!;
  let line = houseText;
  if (predir) line += ' ' + predir;
  line += ' ' + street + ' ' + strtype;
  if (postdir) line += ' ' + postdir;
  if (apttype) line += ' ' + apttype + ' ' + aptnb;

  const geolevel = GEOLEVELS.draw(rng);
  // Block-level addresses scatter over the ZIP area, tract-level ones less, ZIP-level sit on its point.
  const spread = geolevel === 'B' ? 2 : geolevel === 'T' ? 0.8 : 0;
  const latitude = round6(zip.latitude + (rng.float() - 0.5) * spread * zip.latSpread);
  const longitude = round6(zip.longitude + (rng.float() - 0.5) * spread * zip.lonSpread);
  // Tracts hold about 4,000 people: a ZIP spans a run of consecutive tract numbers in its county.
  const zipHash = hash32(zip.zipNumber);
  const tractCount = Math.max(1, Math.round(zip.population / 4000));
  const tractBase = 100 + (zipHash % 9000);
  const tract = tractText(Math.min(9899, tractBase + rng.int(tractCount)), rng.chance(0.7) ? 0 : rng.between(1, 4));
  const rural = zip.density < 100;
  return {
    // hash32 is a bijection on 32-bit integers: distinct households, distinct ADDRIDs.
    addrId: String(hash32((serial ^ 0x5f3759df) >>> 0)).padStart(10, '0'),
    line,
    house: houseText,
    predir,
    street,
    strtype,
    postdir,
    apttype,
    aptnb,
    z4: DIGITS4[rng.between(1, 9999)]!,
    // USPS delivery point: the last two digits of the primary number.
    dpc: DIGITS2[house % 100]!,
    z4type: hasUnit && dwelling === 'M' ? 'H' : 'S',
    crte: rural && rng.chance(0.6) ? ROUTES[80 + rng.int(20)]! : ROUTES[rng.int(80)]!,
    dpv: rng.chance(0.96) ? 'Y' : hasUnit && rng.chance(0.5) ? 'S' : 'D',
    vacant: rng.chance(0.01) ? 'Y' : 'N',
    geolevel,
    latitude,
    longitude,
    tract,
    block: BLOCKS[rng.int(BLOCKS.length)]!,
  };
}
