// Census-area fields: one deterministic profile per ZIP (every person in a ZIP area shares it), so
// neighbours agree. Percentages are whole numbers 0-100; densities are people or housing units per
// square mile; CENS_HH_AVGSIZE is in hundredths (254 = 2.54 people per household).
import { Prng } from './prng';

export const CENSUS_FIELDS = [
  'CENSPCT_WATER', 'CENS_POP_DENSITY', 'CENS_HU_DENSITY', 'CENSPCT_POP_WHITE', 'CENSPCT_POP_BLACK',
  'CENSPCT_POP_AMERIND', 'CENSPCT_POP_ASIAN', 'CENSPCT_POP_PACISL', 'CENSPCT_POP_OTHRACE',
  'CENSPCT_POP_MULTIRACE', 'CENSPCT_POP_HISPANIC', 'CENSPCT_POP_AGELT18', 'CENSPCT_POP_MALES',
  'CENSPCT_ADULT_AGE1824', 'CENSPCT_ADULT_AGE2534', 'CENSPCT_ADULT_AGE3544', 'CENSPCT_ADULT_AGE4554',
  'CENSPCT_ADULT_AGE5564', 'CENSPCT_ADULT_AGEGE65', 'CENS_POP_MEDAGE', 'CENS_HH_AVGSIZE',
  'CENSPCT_HH_FAMILY', 'CENSPCT_HH_FAMILY_HUSBWIFE', 'CENSPCT_HU_OCCUPIED', 'CENSPCT_HU_OWNED',
  'CENSPCT_HU_RENTED', 'CENSPCT_HU_VACANTSEASONAL',
] as const;

/** Splits 100 into `weights.length` whole percentages in proportion to the weights. */
function shares(weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const raw = weights.map((w) => (100 * w) / total);
  const out = raw.map(Math.floor);
  let left = 100 - out.reduce((a, b) => a + b, 0);
  raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0]).forEach(([, i]) => left-- > 0 && out[i]!++);
  return out;
}

const cache = new Map<string, number[]>();

/** The 27 census values of a ZIP area, in CENSUS_FIELDS order. */
export function censusProfile(zip: string, countyZips: number, seed: number): number[] {
  const key = zip;
  const hit = cache.get(key);
  if (hit) return hit;
  const rng = new Prng((Number(zip) * 2654435761) ^ seed);
  const urban = Math.min(1, countyZips / 60 + rng.float() * 0.3);
  const popDensity = Math.round(Math.exp(2 + urban * 7 + rng.float()));
  const race = shares([60 + rng.int(35), 4 + rng.int(25), rng.int(3), 1 + rng.int(10 * urban + 1), rng.int(2), rng.int(6), 1 + rng.int(5)]);
  const ages = shares([11 + rng.int(5), 16 + rng.int(6), 15 + rng.int(4), 15 + rng.int(4), 16 + rng.int(4), 17 + rng.int(8)]);
  const owned = 40 + rng.int(40) - Math.round(urban * 15);
  const occupied = 80 + rng.int(18);
  const profile = [
    rng.int(8), popDensity, Math.round(popDensity / (2.2 + rng.float())),
    ...race, Math.min(95, rng.int(20) + (race[6]! + race[5]!) * 3), 18 + rng.int(9), 47 + rng.int(5),
    ...ages, 30 + rng.int(16), 220 + rng.int(80),
    55 + rng.int(25), 38 + rng.int(22), occupied, owned, 100 - owned, rng.int(Math.max(1, 100 - occupied)),
  ];
  cache.set(key, profile);
  return profile;
}
