// The census-area fields (CENS*) of a ZIP area and the traits its households draw from (income,
// urbanity, ethnic mix, owners). A pure function of the ZIP, so a ZIP looks the same in every dataset;
// CENS_POP_DENSITY is the ZIP's real density, the rest synthetic but coherent (units: CODEBOOK.md).
import type { ZipArea } from './geography';
import { hash32, Prng } from './prng';
import { HIGH_INCOME_STATES, LOW_INCOME_STATES, STATE_MIX } from './data/stateMix';

export const CENSUS_FIELDS = [
  'CENSPCT_WATER',
  'CENS_POP_DENSITY',
  'CENS_HU_DENSITY',
  'CENSPCT_POP_WHITE',
  'CENSPCT_POP_BLACK',
  'CENSPCT_POP_AMERIND',
  'CENSPCT_POP_ASIAN',
  'CENSPCT_POP_PACISL',
  'CENSPCT_POP_OTHRACE',
  'CENSPCT_POP_MULTIRACE',
  'CENSPCT_POP_HISPANIC',
  'CENSPCT_POP_AGELT18',
  'CENSPCT_POP_MALES',
  'CENSPCT_ADULT_AGE1824',
  'CENSPCT_ADULT_AGE2534',
  'CENSPCT_ADULT_AGE3544',
  'CENSPCT_ADULT_AGE4554',
  'CENSPCT_ADULT_AGE5564',
  'CENSPCT_ADULT_AGEGE65',
  'CENS_POP_MEDAGE',
  'CENS_HH_AVGSIZE',
  'CENSPCT_HH_FAMILY',
  'CENSPCT_HH_FAMILY_HUSBWIFE',
  'CENSPCT_HU_OCCUPIED',
  'CENSPCT_HU_OWNED',
  'CENSPCT_HU_RENTED',
  'CENSPCT_HU_VACANTSEASONAL',
] as const;

/** Urbanity class by density: 0 urban, 1 suburban, 2 town, 3 rural. */
export type Urbanity = 0 | 1 | 2 | 3;

export interface ZipProfile {
  /** The 27 CENS* values in CENSUS_FIELDS order. */
  readonly values: readonly number[];
  readonly urbanity: Urbanity;
  /** The area's income level, a z-score (0 = national middle). */
  readonly income: number;
  /** Percent of people: white, black, American Indian, Asian, Pacific islander, other, multiracial. */
  readonly race: readonly number[];
  readonly hispanic: number;
  /** Race shares among non-Hispanic people (percent): most "other race" answers are Hispanic. */
  readonly nonHispanicRace: readonly number[];
  readonly ownedPct: number;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Whole percentages in proportion to `weights`, adding up to exactly 100 (largest remainder). */
export function percentShares(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const raw = weights.map((w) => (100 * w) / total);
  const out = raw.map(Math.floor);
  let left = 100 - out.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0; k++, left--) out[order[k]![1]]!++;
  return out;
}

/** Median age of a population from its under-18 share and adult age-band shares. */
function medianAge(under18: number, adultBands: readonly number[]): number {
  const edges = [18, 25, 35, 45, 55, 65, 90];
  let cum = under18;
  if (cum >= 50) return Math.round((18 * 50) / cum);
  for (let i = 0; i < adultBands.length; i++) {
    const share = (adultBands[i]! * (100 - under18)) / 100;
    if (cum + share >= 50) return Math.round(edges[i]! + ((50 - cum) / share) * (edges[i + 1]! - edges[i]!));
    cum += share;
  }
  return 65;
}

function build(zip: ZipArea): ZipProfile {
  const rng = new Prng(hash32(zip.zipNumber ^ 0x2c1b3c6d), 7);
  const noise = (sigma: number) => Math.exp(rng.normal() * sigma);
  const urbanity: Urbanity = zip.density >= 3000 ? 0 : zip.density >= 1000 ? 1 : zip.density >= 150 ? 2 : 3;
  const mix = STATE_MIX[zip.state];
  const income =
    rng.normal() * 0.55 +
    [0.05, 0.35, -0.1, -0.25][urbanity]! +
    (HIGH_INCOME_STATES.has(zip.state) ? 0.25 : LOW_INCOME_STATES.has(zip.state) ? -0.25 : 0);

  // The lognormal noise has mean 1.28: divide it out so areas average to the state share.
  const hispanic = clamp(Math.round(((mix?.hispanic ?? 10) * noise(0.7)) / 1.28), 0, 98);
  const cityBoost = [1.6, 1.1, 0.9, 0.5][urbanity]!;
  const raceWeights = [
    61.6 * noise(0.25) * (urbanity === 3 ? 1.4 : 1) * (mix?.white ?? 1),
    12.4 * noise(0.9) * cityBoost * (mix?.black ?? 1),
    1.1 * noise(0.8) * (mix?.amerind ?? 1),
    6 * noise(0.9) * cityBoost * (mix?.asian ?? 1),
    0.2 * noise(0.8) * (mix?.pacisl ?? 1),
    2 + hispanic * 0.45 * noise(0.3),
    6 + hispanic * 0.25 * noise(0.3),
  ];
  const race = percentShares(raceWeights);

  const under18 = clamp(Math.round(22 * noise(0.12) + (urbanity === 0 ? -2 : 0) + hispanic * 0.04), 8, 40);
  const youngFactor = urbanity === 0 ? 1.25 : urbanity === 3 ? 0.85 : 1;
  const adultBands = percentShares([12 * youngFactor, 17.5 * youngFactor, 16.5, 15.5, 16.5, 22 / youngFactor].map((w) => w * noise(0.15)));
  const avgSize = clamp(Math.round(255 * noise(0.08) + (under18 - 22) * 4 + hispanic * 0.6 - (urbanity === 0 ? 20 : 0)), 150, 420);
  const family = clamp(Math.round(65 + (avgSize - 255) * 0.15 + rng.normal() * 6 - (urbanity === 0 ? 10 : 0)), 25, 92);
  const husbWife = clamp(Math.round(family * (0.72 + rng.normal() * 0.05)), 5, family);
  const seasonal = urbanity >= 2 && rng.chance(0.1) ? Math.round(8 + rng.float() * 35) : Math.round(rng.float() * 3);
  const occupied = clamp(Math.round(93 - seasonal - rng.float() * 6), 40, 99);
  const owned = clamp(Math.round(64 + [-24, 6, -2, 10][urbanity]! + income * 6 + rng.normal() * 7), 8, 96);
  const water = clamp(Math.floor(Math.exp(rng.normal() * 1.1) - 0.6), 0, 60);
  const density = Math.round(zip.density);
  const housingDensity = Math.max(0, Math.round((zip.density * 100) / avgSize / (occupied / 100)));

  const values = [
    water,
    density,
    housingDensity,
    ...race,
    hispanic,
    under18,
    clamp(Math.round(49 + rng.normal() * 1.5), 42, 58),
    ...adultBands,
    medianAge(under18, adultBands),
    avgSize,
    family,
    husbWife,
    occupied,
    owned,
    100 - owned,
    Math.min(seasonal, 100 - occupied),
  ];
  const nonHispanic = raceWeights.map((w, i) => w * (i === 5 ? 0.08 : i === 6 ? 0.3 : 1));
  const nhTotal = nonHispanic.reduce((a, b) => a + b, 0);
  return { values, urbanity, income, race, hispanic, nonHispanicRace: nonHispanic.map((w) => (100 * w) / nhTotal), ownedPct: owned };
}

// Indexed by the ZIP as a number: a ZIP's profile is built the first time someone lives there.
const cache: Array<ZipProfile | undefined> = [];

export function zipProfile(zip: ZipArea): ZipProfile {
  return (cache[zip.zipNumber] ??= build(zip));
}
