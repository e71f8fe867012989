// This project's own code book for the coded household and person fields, whose meaning the
// interface document does not give (CODEBOOK.md explains every code and rate). Codes hang together:
// one household income level drives income, wealth, home value, education and segments; age drives
// generation, life stage and occupation; the ZIP's census profile drives ethnicity and ownership.
import type { ZipProfile } from './census';
import { HIGH_INCOME_STATES, LOW_INCOME_STATES, WARM_STATES } from './data/stateMix';
import type { Household, Person } from './people';
import { normalCdf, Prng, Weighted } from './prng';
import { DIGITS2, LETTERS, NUMBER_TEXT } from './strings';

const letter = (i: number) => LETTERS[i]!;
const pad2 = (n: number) => DIGITS2[n]!;
const text = (n: number) => NUMBER_TEXT[n]!;

/** Index of the band that `x` falls in, given the bands' upper bounds. */
function bandOf(x: number, bounds: readonly number[]): number {
  let i = 0;
  while (i < bounds.length && x >= bounds[i]!) i++;
  return i;
}
/** Upper bounds (cumulative shares) of bands with these shares, for a uniform draw. */
function cutsOf(shares: readonly number[]): number[] {
  const total = shares.reduce((a, b) => a + b, 0);
  let c = 0;
  return shares.slice(0, -1).map((s) => (c += s / total));
}

// Estimated household income: EHI A-L and the finer EHI_V2 A-O, with US household income shares.
const EHI_CUTS = cutsOf([9, 8, 8, 11, 16, 12, 10, 7, 5, 3.5, 4.5, 6]);
const EHI_V2_CUTS = cutsOf([6, 5, 8, 8, 11, 16, 12, 10, 7, 5, 3.5, 3, 2.5, 1.5, 1.5]);
// Market home value bands A-S, upper bounds in dollars (S is $2M and over).
const HOME_VALUE_BOUNDS = [
  25e3, 50e3, 75e3, 100e3, 125e3, 150e3, 175e3, 200e3, 225e3, 250e3, 275e3, 300e3, 350e3, 400e3, 500e3, 750e3, 1e6, 2e6,
];
const YEAR_BUILT = new Weighted([
  [1900, 12],
  [1940, 5],
  [1950, 10],
  [1960, 11],
  [1970, 15],
  [1980, 13],
  [1990, 13],
  [2000, 13],
  [2010, 7],
  [2020, 1],
] as const);
const RELIGION = new Weighted([
  ['P', 38],
  ['C', 21],
  ['J', 2],
  ['M', 1],
  ['B', 1],
  ['L', 2],
  ['O', 5],
  ['N', 18],
  ['', 12],
] as const);
const RELIGION_HISPANIC = new Weighted([
  ['C', 55],
  ['P', 22],
  ['N', 13],
  ['', 10],
] as const);
const RELIGION_UTAH = new Weighted([
  ['L', 55],
  ['P', 12],
  ['C', 8],
  ['N', 15],
  ['', 10],
] as const);
const LANGUAGE: Readonly<Record<string, Weighted<string>>> = {
  W: new Weighted([
    ['EN', 95],
    ['DE', 1],
    ['FR', 1],
    ['IT', 1],
    ['PL', 1],
    ['RU', 1],
  ]),
  B: new Weighted([
    ['EN', 96],
    ['FR', 3],
    ['ES', 1],
  ]),
  H: new Weighted([
    ['ES', 55],
    ['EN', 45],
  ]),
  A: new Weighted([
    ['ZH', 28],
    ['TL', 14],
    ['VI', 14],
    ['HI', 12],
    ['KO', 10],
    ['JA', 4],
    ['EN', 18],
  ]),
  N: new Weighted([['EN', 100]]),
  P: new Weighted([
    ['EN', 85],
    ['SM', 15],
  ]),
  O: new Weighted([
    ['EN', 75],
    ['AR', 12],
    ['ES', 8],
    ['RU', 5],
  ]),
};
const ETHNIC_CODES = ['W', 'B', 'N', 'A', 'P', 'O', 'O'];

export const HOUSEHOLD_CODE_FIELDS = [
  'HOMEOWNERC',
  'DWELLTYPE',
  'MOBHOMECD',
  'LOR',
  'HHNBR',
  'HHNBRSR',
  'EHI',
  'EHI_V2',
  'WEALTHSCR',
  'WEALTHSCR_V2',
  'MRKTHOMEVAL',
  'YRBLD',
  'POOL',
  'FIREPLCD',
  'ETHNICITYCD',
  'SPANISHSPCD',
  'LANGUAGECD',
  'RELIGIONCD',
  'SOHOCD',
  'CREDITCARD',
  'CHARITYDNR',
  'CHILD',
  'CHILDNBRCD',
  'CHILDAGECD_6',
  'CHILDAGECD_6_10',
  'CHILDAGECD_11_15',
  'CHILDAGECD_16_17',
  'SGLPARENT',
  'HHCLSTRDCD',
  'FMCLSTRDCD',
  'NEIGHBORHOOD_CLSTRDCD',
] as const;

/** Values shared by everyone in a household. */
export interface HouseholdCodes {
  income: number; // latent z-score
  incomeU: number; // its percentile
  owner: boolean;
  dwelling: 'S' | 'M' | 'T';
  ethnicity: string;
  /** Values of HOUSEHOLD_CODE_FIELDS, in that order. */
  values: Array<string | number>;
}

function ageShift(age: number): number {
  return age < 25 ? -0.6 : age < 35 ? -0.1 : age < 45 ? 0.15 : age < 55 ? 0.25 : age < 65 ? 0.15 : age < 75 ? -0.2 : -0.45;
}

export function householdCodes(rng: Prng, hh: Household, zip: ZipProfile, state: string, headAge: number): HouseholdCodes {
  // Centred so that the income bands land on their national shares.
  const income = zip.income * 0.6 + rng.normal() * 0.8 + ageShift(headAge) + (hh.couple ? 0.35 : 0) - 0.22;
  const incomeU = normalCdf(income / 1.0);
  const ownChance =
    zip.ownedPct / 100 + (headAge < 25 ? -0.45 : headAge < 35 ? -0.2 : headAge < 45 ? -0.05 : headAge < 65 ? 0.08 : 0.12) + income * 0.08;
  const owner = rng.chance(Math.min(0.97, Math.max(0.03, ownChance)));
  const d = rng.float();
  const dwelling: 'S' | 'M' | 'T' = owner
    ? d < 0.86
      ? 'S'
      : d < 0.94
        ? 'M'
        : 'T'
    : d < (zip.urbanity === 0 ? 0.85 : 0.6)
      ? 'M'
      : d < 0.94
        ? 'S'
        : 'T';

  // Ethnicity from the area's mix; language, religion and Spanish-speaking follow from it.
  let ethnicity = 'W';
  if (rng.float() * 100 < zip.hispanic) ethnicity = 'H';
  else {
    const u = rng.float() * 100;
    let c = 0;
    for (let i = 0; i < zip.nonHispanicRace.length; i++)
      if (u < (c += zip.nonHispanicRace[i]!)) {
        ethnicity = ETHNIC_CODES[i]!;
        break;
      }
  }
  const wealthU = normalCdf(
    (income + (headAge < 35 ? -0.7 : headAge < 45 ? -0.3 : headAge < 55 ? 0 : headAge < 65 ? 0.3 : 0.45) + (owner ? 0.4 : -0.3) - 0.12) /
      1.2,
  );
  const stateCost = HIGH_INCOME_STATES.has(state) ? 0.45 : LOW_INCOME_STATES.has(state) ? -0.4 : 0;
  const homeValue = Math.exp(Math.log(240_000) + 0.75 * (income * 0.7 + stateCost + rng.normal() * 0.5));
  const warm = WARM_STATES.has(state);
  const single = dwelling === 'S';
  const decade = YEAR_BUILT.draw(rng);
  const seniors = hh.members.reduce((n, m) => n + (m.age >= 65 ? 1 : 0), 0);
  const lor = Math.min(Math.max(0, headAge - 18), Math.floor(-Math.log(1 - rng.float()) * (owner ? 12 : 3)));
  const lifeStage = headAge >= 65 ? 2 : hh.children > 0 || headAge >= 35 ? 1 : 0;

  // In HOUSEHOLD_CODE_FIELDS order.
  const values: Array<string | number> = [
    owner ? 'H' : 'R', // HOMEOWNERC
    dwelling, // DWELLTYPE
    dwelling === 'T' ? 'Y' : '', // MOBHOMECD
    lor, // LOR
    hh.members.length, // HHNBR
    text(seniors), // HHNBRSR
    letter(bandOf(incomeU, EHI_CUTS)), // EHI
    letter(bandOf(incomeU, EHI_V2_CUTS)), // EHI_V2
    letter(Math.min(8, Math.floor(wealthU * 9))), // WEALTHSCR
    letter(Math.min(11, Math.floor(wealthU * 12))), // WEALTHSCR_V2
    owner ? letter(bandOf(homeValue, HOME_VALUE_BOUNDS)) : '', // MRKTHOMEVAL
    rng.chance(0.92) ? text(decade + rng.int(decade === 1900 ? 40 : decade === 2020 ? 4 : 10)) : '', // YRBLD
    rng.chance(single && owner ? 0.08 * (warm ? 2.3 : 1) : 0.01) ? 'Y' : '', // POOL
    rng.chance(single ? 0.38 * (warm ? 0.45 : 1) : 0.08) ? 'Y' : '', // FIREPLCD
    ethnicity, // ETHNICITYCD
    rng.chance(ethnicity === 'H' ? 0.65 : 0.01) ? 'Y' : '', // SPANISHSPCD
    LANGUAGE[ethnicity]!.draw(rng), // LANGUAGECD
    (state === 'UT' ? RELIGION_UTAH : ethnicity === 'H' ? RELIGION_HISPANIC : RELIGION).draw(rng), // RELIGIONCD
    rng.chance(0.06 + (income > 0.5 ? 0.04 : 0)) ? 'Y' : '', // SOHOCD
    rng.chance(Math.min(0.95, Math.max(0.2, 0.6 + income * 0.12))) ? 'Y' : '', // CREDITCARD
    rng.chance(Math.min(0.6, Math.max(0.03, 0.16 + income * 0.07 + (headAge >= 60 ? 0.1 : 0)))) ? 'Y' : '', // CHARITYDNR
    hh.children > 0 ? 'Y' : '', // CHILD
    hh.children > 0 ? text(hh.children) : '', // CHILDNBRCD
    hh.childBands[0] ? 'Y' : '', // CHILDAGECD_6
    hh.childBands[1] ? 'Y' : '', // CHILDAGECD_6_10
    hh.childBands[2] ? 'Y' : '', // CHILDAGECD_11_15
    hh.childBands[3] ? 'Y' : '', // CHILDAGECD_16_17
    hh.children > 0 && !hh.couple ? 'Y' : '', // SGLPARENT
    pad2(1 + zip.urbanity * 15 + Math.min(4, Math.floor(incomeU * 5)) * 3 + lifeStage), // HHCLSTRDCD
    pad2(familyCluster(hh, headAge)), // FMCLSTRDCD
    pad2(1 + zip.urbanity * 5 + Math.min(4, Math.floor(normalCdf(zip.income / 0.65) * 5))), // NEIGHBORHOOD_CLSTRDCD
  ];
  return { income, incomeU, owner, dwelling, ethnicity, values };
}

/** FMCLSTRDCD 01-10: the household's make-up (see CODEBOOK.md). */
function familyCluster(hh: Household, headAge: number): number {
  // Roles: 2 = grown child of the head, 3 = parent of the head (see people.ts).
  if (hh.members.some((m) => m.role === 2 || m.role === 3)) return 9;
  if (hh.children > 0) return hh.couple ? 5 : 8;
  if (hh.members.length === 1) return headAge < 35 ? 1 : headAge < 65 ? 2 : 3;
  if (hh.couple && hh.members.length === 2) return headAge < 35 ? 4 : headAge < 65 ? 6 : 7;
  return 10;
}

const OCCUPATION: Readonly<Record<string, Weighted<string>>> = {
  high: new Weighted([
    ['P', 45],
    ['M', 30],
    ['S', 10],
    ['C', 10],
    ['B', 5],
  ]),
  mid: new Weighted([
    ['C', 25],
    ['S', 25],
    ['B', 20],
    ['P', 15],
    ['M', 10],
    ['H', 5],
  ]),
  low: new Weighted([
    ['B', 40],
    ['S', 25],
    ['C', 15],
    ['H', 10],
    ['M', 5],
    ['P', 5],
  ]),
};
// OCCUPATIONCD_V2: the Standard Occupational Classification major group behind each OCCUPATIONCD.
const SOC_GROUPS: Readonly<Record<string, readonly string[]>> = {
  P: ['15', '17', '19', '21', '23', '25', '27', '29'],
  M: ['11', '13'],
  S: ['35', '37', '39', '41'],
  C: ['43'],
  B: ['45', '47', '49', '51', '53'],
};
const GENERATIONS: ReadonlyArray<readonly [lastBirthYear: number, code: string, group: string]> = [
  [1945, '01', 'S'],
  [1964, '02', 'B'],
  [1980, '03', 'X'],
  [1996, '04', 'M'],
  [9999, '05', 'Z'],
];
const INTERNAL7 = new Weighted([
  ['A', 30],
  ['B', 25],
  ['C', 20],
  ['D', 15],
  ['E', 10],
] as const);
const INTERNAL9 = new Weighted([
  ['P', 55],
  ['S', 30],
  ['T', 15],
] as const);

export const PERSON_CODE_FIELDS = [
  'MARRIEDCD',
  'EDUCATIONCD',
  'OCCUPATIONCD',
  'OCCUPATIONCD_V2',
  'VETERANCD',
  'GENERATION_CLSTRDCD',
  'GENERATION_GRPCD',
  'LIFESTG_CLSTRD',
  'LIFESTG_GRPCD',
  'MESSAGING_CLSTRDCD',
  'DIGITALCLSTRDCD',
  'INTERNAL7',
  'INTERNAL9',
] as const;

/** The coded fields of one person, in PERSON_CODE_FIELDS order. */
export function personCodes(rng: Prng, p: Person, birthYear: number, hh: HouseholdCodes, children: number): string[] {
  const edU = normalCdf(hh.income * 0.7 + rng.normal() * 0.7);
  let education = edU < 0.38 ? 1 : edU < 0.64 ? 2 : edU < 0.87 ? 3 : 4;
  if (p.age < 22) education = Math.min(education, 2);
  let occupation: string;
  if (p.age >= 70 ? rng.chance(0.92) : p.age >= 62 && rng.chance(0.5)) occupation = 'R';
  else if (p.age < 23 && rng.chance(0.45)) occupation = 'T';
  else occupation = OCCUPATION[education >= 3 ? 'high' : education === 2 ? 'mid' : 'low']!.draw(rng);
  const soc = SOC_GROUPS[occupation];
  const generation = GENERATIONS.find(([last]) => birthYear <= last)!;
  const ageBand4 = p.age < 35 ? 0 : p.age < 50 ? 1 : p.age < 65 ? 2 : 3;
  const status = children > 0 && p.role <= 1 ? 2 : p.married ? 1 : 0;
  const ageBand6 = p.age < 25 ? 0 : p.age < 35 ? 1 : p.age < 45 ? 2 : p.age < 55 ? 3 : p.age < 65 ? 4 : 5;
  const veteranRate = p.gender === 'M' ? (p.age >= 65 ? 0.28 : p.age >= 45 ? 0.12 : 0.05) : 0.015;
  // In PERSON_CODE_FIELDS order.
  return [
    p.married ? 'M' : 'S', // MARRIEDCD
    text(education), // EDUCATIONCD
    occupation, // OCCUPATIONCD
    soc ? rng.pick(soc) : '', // OCCUPATIONCD_V2
    rng.chance(veteranRate) ? 'Y' : '', // VETERANCD
    generation[1], // GENERATION_CLSTRDCD
    generation[2], // GENERATION_GRPCD
    pad2(1 + ageBand4 * 3 + status), // LIFESTG_CLSTRD
    letter(ageBand4), // LIFESTG_GRPCD
    pad2(1 + ageBand6 * 2 + (education >= 3 ? 1 : 0)), // MESSAGING_CLSTRDCD
    pad2(Math.max(1, Math.min(10, Math.round(9 - (p.age - 18) / 8 + rng.normal() * 1.2)))), // DIGITALCLSTRDCD
    INTERNAL7.draw(rng), // INTERNAL7
    INTERNAL9.draw(rng), // INTERNAL9
  ];
}
