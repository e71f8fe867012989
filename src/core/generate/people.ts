// Households and the people in them. A household is 1 to 6 adults at one address, mostly sharing
// one last name; a married couple are both MARRIEDCD M. Ages follow the US adult distribution and
// DOB (YYYYMM) agrees with AGE as of REFERENCE_YEAR-01.
import { Prng, sampler } from './prng';
import type { NameSamplers } from './names';

/** Ages are as of January of this year; DOB is then (REFERENCE_YEAR - 1 - AGE) and any month. */
export const REFERENCE_YEAR = 2026;

// Share of US adults by age band (Census 2020 age distribution, 18+).
const AGE_BANDS = sampler<readonly [number, number]>([
  [[18, 24], 12], [[25, 34], 17.5], [[35, 44], 16.5], [[45, 54], 15.5],
  [[55, 64], 16.5], [[65, 74], 12.5], [[75, 84], 6.5], [[85, 99], 3],
]);
// Adults per household record (sizes 1-6).
const HOUSEHOLD_SIZES = sampler([[1, 28], [2, 36], [3, 15], [4, 12], [5, 6], [6, 3]] as const);
const SUFFIXES = sampler([['', 955], ['JR', 30], ['SR', 10], ['II', 3], ['III', 2]] as const);

export interface Person {
  gender: 'F' | 'M';
  age: number;
  first: string;
  middle: string;
  last: string;
  suffix: string;
  married: boolean;
}

export function randomAge(rng: Prng): number {
  const [lo, hi] = AGE_BANDS.sample(rng);
  return rng.between(lo, hi);
}

export function householdSize(rng: Prng): number {
  return HOUSEHOLD_SIZES.sample(rng);
}

function middleInitial(rng: Prng): string {
  return rng.chance(0.45) ? String.fromCharCode(65 + rng.int(26)) : '';
}

function person(rng: Prng, names: NameSamplers, gender: 'F' | 'M', age: number, last: string, married: boolean): Person {
  const first = (gender === 'F' ? names.female : names.male).sample(rng);
  return { gender, age, first, middle: middleInitial(rng), last, suffix: gender === 'M' ? SUFFIXES.sample(rng) : '', married };
}

const clampAge = (a: number) => Math.max(18, Math.min(99, a));

/** The members of one household of `size` adults. */
export function householdMembers(rng: Prng, names: NameSamplers, size: number): Person[] {
  const last = names.last.sample(rng);
  const headGender = rng.chance(0.5) ? 'F' : 'M';
  const headAge = randomAge(rng);
  const couple = size >= 2 && rng.chance(0.72);
  const members = [person(rng, names, headGender, headAge, last, couple)];
  if (couple) {
    const spouseGender = rng.chance(0.97) ? (headGender === 'F' ? 'M' : 'F') : headGender;
    members.push(person(rng, names, spouseGender, clampAge(headAge + rng.between(-6, 6)), rng.chance(0.85) ? last : names.last.sample(rng), true));
  }
  while (members.length < size) {
    // Grown children when the head is old enough, otherwise relatives or housemates.
    const child = headAge >= 40 && rng.chance(0.7);
    const age = child ? clampAge(headAge - rng.between(20, 35)) : randomAge(rng);
    const ownName = child ? rng.chance(0.92) : rng.chance(0.5);
    members.push(person(rng, names, rng.chance(0.5) ? 'F' : 'M', age, ownName ? last : names.last.sample(rng), false));
  }
  return members;
}

export function dobFor(rng: Prng, age: number): string {
  return `${REFERENCE_YEAR - 1 - age}${String(rng.between(1, 12)).padStart(2, '0')}`;
}

