// Households and the adults in them. A household is 1 to 6 adults at one address: a head, often a
// spouse (both MARRIEDCD M), then grown children, a parent or other adults, mostly sharing the head's
// last name. Ages follow the US adult age distribution; DOB agrees with AGE at AGE_REFERENCE.
import type { Names } from './names';
import { AliasTable, Prng, Weighted } from './prng';
import { yearMonthText } from './strings';

/**
 * Ages are completed years at this month (January 2026): AGE = floor((reference - DOB) / 12 months),
 * counting the birth month as already reached. So DOB 199901 is AGE 27 and DOB 199902 is AGE 26.
 */
export const AGE_REFERENCE = { year: 2026, month: 1 } as const;

export const MIN_AGE = 18;
export const MAX_AGE = 100;

/** Share of US adults by age band (2020 Census, 18+), spread evenly over each band's ages. */
const AGE_BANDS: ReadonlyArray<readonly [from: number, to: number, percent: number]> = [
  [18, 24, 12],
  [25, 34, 17.5],
  [35, 44, 16.5],
  [45, 54, 15.5],
  [55, 64, 16.5],
  [65, 74, 12.5],
  [75, 84, 6.5],
  [85, 94, 2.7],
  [95, 100, 0.3],
];
const AGES = new AliasTable(
  Array.from({ length: MAX_AGE - MIN_AGE + 1 }, (_, i) => {
    const band = AGE_BANDS.find(([lo, hi]) => MIN_AGE + i >= lo && MIN_AGE + i <= hi)!;
    return band[2] / (band[1] - band[0] + 1);
  }),
);

/** Adults per household (consumer-file households: about 2.1 adults each). */
const SIZES = new Weighted([
  [1, 30],
  [2, 47],
  [3, 14],
  [4, 6],
  [5, 2],
  [6, 1],
] as const);
const SUFFIXES = new Weighted([
  ['', 9620],
  ['JR', 250],
  ['SR', 80],
  ['II', 25],
  ['III', 20],
  ['IV', 5],
] as const);
const CHILD_COUNTS = new Weighted([
  [1, 42],
  [2, 37],
  [3, 15],
  [4, 6],
] as const);

export const enum Role {
  Head,
  Spouse,
  Child,
  Parent,
  Other,
}

export interface Person {
  gender: 'F' | 'M';
  age: number;
  first: string;
  middle: string;
  last: string;
  suffix: string;
  married: boolean;
  role: Role;
}

export interface Household {
  members: Person[];
  couple: boolean;
  /** Children under 18 (not in the file): how many, and which age bands they fall in. */
  children: number;
  childBands: [under6: boolean, from6to10: boolean, from11to15: boolean, from16to17: boolean];
}

export function drawAge(rng: Prng): number {
  return MIN_AGE + AGES.draw(rng);
}

export function householdSize(rng: Prng): number {
  return SIZES.draw(rng);
}

const clampAge = (a: number) => Math.max(MIN_AGE, Math.min(MAX_AGE, Math.round(a)));

function person(rng: Prng, names: Names, gender: 'F' | 'M', age: number, last: string, role: Role, married: boolean): Person {
  const firstNames = gender === 'F' ? names.female : names.male;
  const m = rng.float();
  // Mostly a middle initial (first letters as common as in first names), sometimes none, rarely a
  // full middle name.
  const middle = m < 0.52 ? firstNames.draw(rng)[0]! : m < 0.56 ? firstNames.draw(rng) : '';
  return {
    gender,
    age,
    last,
    role,
    married,
    middle,
    first: firstNames.draw(rng),
    suffix: gender === 'M' ? SUFFIXES.draw(rng) : '',
  };
}

/** Chance that a household whose head is `age` has children under 18 at home. */
function childChance(age: number): number {
  return age < 25 ? 0.18 : age < 35 ? 0.45 : age < 45 ? 0.62 : age < 55 ? 0.4 : age < 65 ? 0.1 : 0.02;
}

/** One household of `size` adults. */
export function drawHousehold(rng: Prng, names: Names, size: number): Household {
  const last = names.last.draw(rng);
  const headGender = rng.chance(0.5) ? 'F' : 'M';
  const headAge = drawAge(rng);
  const couple = size >= 2 && rng.chance(size === 2 ? 0.72 : 0.8);
  const members = [person(rng, names, headGender, headAge, last, Role.Head, couple)];
  if (couple) {
    const gender = rng.chance(0.97) ? (headGender === 'F' ? 'M' : 'F') : headGender;
    const age = clampAge(headAge + rng.normal() * 4 + (headGender === 'M' ? -2 : 2));
    members.push(person(rng, names, gender, age, rng.chance(0.86) ? last : names.last.draw(rng), Role.Spouse, true));
  }
  while (members.length < size) {
    // Drawn from the adult distribution, so the whole file keeps it; the age then decides the role.
    const age = drawAge(rng);
    const gender = rng.chance(0.5) ? 'F' : 'M';
    if (headAge - age >= 18 && rng.chance(0.8))
      members.push(person(rng, names, gender, age, rng.chance(0.94) ? last : names.last.draw(rng), Role.Child, false));
    else if (age - headAge >= 18)
      members.push(person(rng, names, gender, age, rng.chance(0.6) ? last : names.last.draw(rng), Role.Parent, false));
    else members.push(person(rng, names, gender, age, rng.chance(0.35) ? last : names.last.draw(rng), Role.Other, false));
  }
  const children = rng.chance(childChance(couple ? Math.min(headAge, members[1]!.age) : headAge)) ? CHILD_COUNTS.draw(rng) : 0;
  const childBands: Household['childBands'] = [false, false, false, false];
  for (let c = 0; c < children; c++) {
    const age = rng.int(18);
    childBands[age < 6 ? 0 : age < 11 ? 1 : age < 16 ? 2 : 3] = true;
  }
  return { members, couple, children, childBands };
}

/** A birth year and DOB (YYYYMM) for someone `age` at AGE_REFERENCE; `out` is reused. */
export function drawDob(rng: Prng, age: number, out: { year: number; text: string }): void {
  const month = 1 + rng.int(12);
  // Born in or before the reference month of (year - age): already had this year's birthday.
  out.year = month <= AGE_REFERENCE.month ? AGE_REFERENCE.year - age : AGE_REFERENCE.year - 1 - age;
  out.text = yearMonthText(out.year, month);
}

/** AGE from DOB, by the rule above (used by tests and documentation). */
export function ageAt(dob: string): number {
  const months = AGE_REFERENCE.year * 12 + AGE_REFERENCE.month - (Number(dob.slice(0, 4)) * 12 + Number(dob.slice(4, 6)));
  return Math.floor(months / 12);
}
