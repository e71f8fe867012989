// The 250-odd interest fields of a person: MS_* mail-order counts, CPI_* interest indexes (0-9) and
// CT_* behaviour flags. Each person belongs to one of 48 profiles (sex x age band x persona) that
// sets each field's level; a field then costs one random byte and two array reads, and interests
// still correlate the way people expect (golf with affluent older men, social networks with the
// young, hunting with the outdoors persona).
import { FIELDS, fieldIndex } from '../../shared/fields';
import { EXCLUSIVE_FLAGS, FLAG_RATES, OLD_FLAGS, OUTLOOK_FLAGS, YOUNG_FLAGS } from './data/flags';
import { hash32, normalQuantile, Prng, Weighted } from './prng';

const AGE_BANDS = 6; // 18-24, 25-34, 35-44, 45-54, 55-64, 65+
const PERSONAS = 4; // outdoors, home and family, tech and media, affluent and culture
const PROFILES = 2 * AGE_BANDS * PERSONAS;

const FEMALE = [
  'WOM',
  'BEAUTY',
  'CRAFT',
  'CROCHET',
  'KNIT',
  'NEEDLEPOINT',
  'QUILT',
  'SEW',
  'COOKING',
  'HOMEDECR',
  'GIFT',
  'KIDAPP',
  'FAMILY',
  'DIET',
  'INSPIRATION',
  'CATS',
  'HOLIDAY',
];
const MALE = [
  'MENAPP',
  'MENFASH',
  'APPAREL_MEN',
  'AUTO',
  'TRUCK',
  'HUNT',
  'FISH',
  'MOTORCYCLE',
  'AVIATION',
  'SPORTS',
  'ELECTRONICS',
  'COMPUTERS',
  'HIGHTECH',
  'GAMBLING',
  'BOATSAIL',
  'DIY',
  'BUSINESS',
];
const YOUNG = [
  'GAMES',
  'SOCIAL',
  'MOBILE',
  'INTERNET',
  'COLLEGE',
  'JOB_SEEKERS',
  'EDUCATION',
  'FAMILY_YOUNG',
  'MUSIC',
  'FITNESS',
  'RUNNING',
  'SOCCER',
  'BASKETBALL',
  'APPAREL',
  'CREDIT_REPAIR',
  'TVMOVIES',
  'KIDAPP',
  'ELECTRONICS',
];
const OLD = [
  'BIBLE',
  'HISTORY',
  'DONOR',
  'INSURANCE',
  'HEALTH',
  'CRUISE',
  'RV',
  'INSPIRATION',
  'CURREVENT',
  'CONTINUITY',
  'GARDEN',
  'COLLECTIBLES',
  'CATALOG',
  'PFIN',
  'WILDLIFE',
  'BOOKS',
  'NONFICTION',
  'FUNDRAISING',
  'HOLIDAY',
  'GOLF',
  'CROCHET',
  'QUILT',
];
const PERSONA_WORDS = [
  ['OUTDOORS', 'CAMP', 'FISH', 'HUNT', 'BOATSAIL', 'WILDLIFE', 'EQUESTRIAN', 'RV', 'GARDEN', 'PETS', 'DOGS', 'SKI', 'BIKING', 'TRUCK'],
  ['FAMILY', 'COOKING', 'CRAFT', 'HOMEDECR', 'HOMELIV', 'KIDAPP', 'BARGAINS', 'SWEEPS', 'HOLIDAY', 'GIFT', 'CATS', 'HOUSEWARES', 'FOOD'],
  ['COMPUTERS', 'ELECTRONICS', 'HIGHTECH', 'INTERNET', 'GAMES', 'MOBILE', 'SOCIAL', 'MUSIC', 'TVMOVIES', 'PHOTO', 'AUDIO', 'SCIENCE'],
  [
    'CULTUREARTS',
    'TRAVEL',
    'GOURMET',
    'GOLF',
    'TENNIS',
    'PFIN',
    'MONEYMAKING',
    'BUSINESS',
    'CRUISE',
    'DONOR',
    'COLLECTIBLES',
    'HISTORY',
    'BOOKS',
    'FICTION',
    'AVIATION',
  ],
];

const has = (name: string, words: readonly string[]) => words.some((w) => name.includes(w));
const indexesOf = (group: string) => Int16Array.from(FIELDS.flatMap((f, i) => (f.group === group ? [i] : [])));

/** How much a profile likes a field, on the CPI 0-9 scale. */
function affinity(name: string, female: boolean, band: number, persona: number): number {
  const isFemale = has(name, FEMALE);
  const isMale = has(name.replace('WOM', '_'), MALE);
  // A per-field base level, so fields differ from each other even within one profile.
  let m = 1.6 + (hash32(name.length * 131 + name.charCodeAt(4) * 7 + name.charCodeAt(name.length - 7)) % 100) / 70;
  if (isFemale) m += female ? 1.5 : -0.8;
  if (isMale) m += female ? -0.8 : 1.5;
  if (has(name, YOUNG)) m += 1.2 - 0.45 * band;
  if (has(name, OLD)) m += -1 + 0.45 * band;
  if (has(name, PERSONA_WORDS[persona]!)) m += 2;
  return m;
}

const MS = indexesOf('mail_order_score');
const CPI = indexesOf('interest_index');
const GROUPED = new Set([...EXCLUSIVE_FLAGS.flatMap((g) => g.map(([n]) => n)), ...OUTLOOK_FLAGS]);
const FLAG_FIELDS = indexesOf('behaviour_flag').filter((i) => !GROUPED.has(FIELDS[i]!.name));
const CPI_CONSERVATIVE = fieldIndex('CPI_CONSERVATIVE_INDEX');
const CPI_LIBERAL = fieldIndex('CPI_LIBERAL_INDEX');

// A field's values depend only on its level m in the profile, so the 256-entry lookup tables are
// built per level (m in steps of 1/8) and shared by all fields and profiles: small enough to stay
// in the CPU cache, where per-profile tables kept missing it.
const LEVEL_STEP = 8;
const LEVEL_MIN = -4;
const LEVELS = (14 - LEVEL_MIN) * LEVEL_STEP + 1;
const levelOf = (m: number) => Math.max(0, Math.min(LEVELS - 1, Math.round((m - LEVEL_MIN) * LEVEL_STEP)));
const cpiByLevel = new Uint8Array(LEVELS * 256);
const msByLevel = new Uint8Array(LEVELS * 256);
const LOG_045 = Math.log(0.45);
for (let level = 0; level < LEVELS; level++) {
  const m = LEVEL_MIN + level / LEVEL_STEP;
  // Mail-order: most people bought nothing in a category; a count, when there is one, is small.
  const rate = Math.min(0.6, Math.max(0.005, 0.05 * Math.exp(0.5 * (m - 2))));
  for (let b = 0; b < 256; b++) {
    const u = (b + 0.5) / 256;
    cpiByLevel[level * 256 + b] = Math.max(0, Math.min(9, Math.round(m + 1.7 * normalQuantile(u))));
    msByLevel[level * 256 + b] = u < 1 - rate ? 0 : Math.min(9, 1 + Math.floor(Math.log(1 - (u - (1 - rate)) / rate) / LOG_045));
  }
}

/** Per profile and field: the offset of the field's level table (level * 256). */
const cpiLevel = new Int32Array(PROFILES * CPI.length);
const msLevel = new Int32Array(PROFILES * MS.length);
const flagThreshold = new Uint16Array(PROFILES * FLAG_FIELDS.length);

for (let p = 0; p < PROFILES; p++) {
  const female = p % 2 === 0;
  const band = Math.floor(p / 2) % AGE_BANDS;
  const persona = Math.floor(p / (2 * AGE_BANDS));
  CPI.forEach((fi, k) => (cpiLevel[p * CPI.length + k] = levelOf(affinity(FIELDS[fi]!.name, female, band, persona)) * 256));
  MS.forEach((fi, k) => (msLevel[p * MS.length + k] = levelOf(affinity(FIELDS[fi]!.name, female, band, persona)) * 256));
  FLAG_FIELDS.forEach((fi, k) => {
    const name = FIELDS[fi]!.name;
    const tilt = YOUNG_FLAGS.some((w) => name.includes(w))
      ? [1.5, 1.35, 1.15, 0.95, 0.75, 0.5][band]!
      : OLD_FLAGS.some((w) => name.includes(w))
        ? [0.5, 0.65, 0.85, 1.05, 1.3, 1.55][band]!
        : 1;
    flagThreshold[p * FLAG_FIELDS.length + k] = Math.round(Math.min(0.95, (FLAG_RATES[name] ?? 0.1) * tilt) * 65535);
  });
}

const PERSONA_BY_SEX = [
  new Weighted([
    [0, 17],
    [1, 33],
    [2, 25],
    [3, 25],
  ] as const),
  new Weighted([
    [0, 33],
    [1, 17],
    [2, 25],
    [3, 25],
  ] as const),
];
// One-of groups (party, shopping segment...) by age band: an index into the group, or -1 for none.
const GROUP_DRAWS = EXCLUSIVE_FLAGS.map((group) =>
  Array.from({ length: AGE_BANDS }, (_, band) => new Weighted(group.map(([name, weights], k) => [name ? k : -1, weights[band]!] as const))),
);
const GROUP_FIELDS = EXCLUSIVE_FLAGS.map((group) => group.map(([name]) => (name ? fieldIndex(name) : -1)));
// Political outlook given the party (Democrat, GOP, independent, none): very conservative ...
// very liberal, then none.
const OUTLOOK_BY_PARTY = [
  [2, 6, 30, 37, 20, 5],
  [30, 40, 22, 2, 1, 5],
  [8, 20, 45, 15, 5, 7],
  [8, 15, 35, 15, 8, 19],
].map((w) => new Weighted(w.map((x, k) => [k < 5 ? k : -1, x] as const)));
const OUTLOOK_FIELDS = OUTLOOK_FLAGS.map(fieldIndex);

export function ageBand(age: number): number {
  return age < 25 ? 0 : age < 35 ? 1 : age < 45 ? 2 : age < 55 ? 3 : age < 65 ? 4 : 5;
}

/** Writes every MS_, CPI_ and CT_ field of one person into `record` (which starts at 0 and ''). */
export function fillScores(record: Array<string | number>, rng: Prng, female: boolean, age: number, affluent: boolean): void {
  const band = ageBand(age);
  const persona = affluent && rng.chance(0.5) ? 3 : PERSONA_BY_SEX[female ? 0 : 1]!.draw(rng);
  const p = (female ? 0 : 1) + 2 * band + 2 * AGE_BANDS * persona;
  let r = 0;
  let base = p * CPI.length;
  for (let k = 0; k < CPI.length; k++) {
    if ((k & 3) === 0) r = rng.next();
    record[CPI[k]!] = cpiByLevel[cpiLevel[base + k]! + (r & 255)]!;
    r >>>= 8;
  }
  base = p * MS.length;
  for (let k = 0; k < MS.length; k++) {
    if ((k & 3) === 0) r = rng.next();
    record[MS[k]!] = msByLevel[msLevel[base + k]! + (r & 255)]!;
    r >>>= 8;
  }
  base = p * FLAG_FIELDS.length;
  for (let k = 0; k < FLAG_FIELDS.length; k++) {
    if ((k & 1) === 0) r = rng.next();
    if ((r & 0xffff) < flagThreshold[base + k]!) record[FLAG_FIELDS[k]!] = 'Y';
    r >>>= 16;
  }
  let party = 3;
  for (let g = 0; g < GROUP_DRAWS.length; g++) {
    const pick = GROUP_DRAWS[g]![band]!.draw(rng);
    if (g === 0) party = pick < 0 ? 3 : pick;
    if (pick >= 0) record[GROUP_FIELDS[g]![pick]!] = 'Y';
  }
  // Political outlook and the political interest indexes follow the party.
  const outlook = OUTLOOK_BY_PARTY[party]!.draw(rng);
  if (outlook >= 0) record[OUTLOOK_FIELDS[outlook]!] = 'Y';
  if (party <= 1) {
    const up = party === 1 ? CPI_CONSERVATIVE : CPI_LIBERAL;
    const down = party === 1 ? CPI_LIBERAL : CPI_CONSERVATIVE;
    record[up] = Math.min(9, (record[up] as number) + 2);
    record[down] = Math.max(0, (record[down] as number) - 1);
  }
}
