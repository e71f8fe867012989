// One household and everything its members share (address, ZIP, census profile, household codes,
// HHID), made from the household's own random stream alone: the same seed and household number
// give the same household whenever it is made, so a state's records can come out in PID order
// while their households are made again for each member (generateRecords.ts).
import { drawAddress } from './address';
import { zipProfile } from './census';
import { householdCodes } from './codeBook';
import type { StateGeography } from './geography';
import { randomHex } from './ids';
import type { Names } from './names';
import { drawHousehold, householdSize } from './people';
import type { HouseholdContext } from './record';
import type { Prng } from './prng';
import { householdRng } from './stateHouseholds';

/** The draws of a household's stream up to its ZIP: its members, then its ZIP (an index into geo.zips). */
function firstDraws(
  rng: Prng,
  size: number,
  geo: StateGeography,
  names: Names,
): { household: ReturnType<typeof drawHousehold>; zipIndex: number } {
  householdSize(rng); // the layout's draw: `size` is it, capped by the people the state had left
  const household = drawHousehold(rng, names, size);
  return { household, zipIndex: geo.byPopulation.draw(rng) };
}

/** The ZIP (as a number) of the dataset's `serial`-th household, as makeHousehold draws it, without making the rest. */
export function householdZip(seed: number, serial: number, size: number, geo: StateGeography, names: Names): number {
  return geo.zips[firstDraws(householdRng(seed, serial), size, geo, names).zipIndex]!.zipNumber;
}

/** The dataset's `serial`-th household, of `size` adults (as StateHouseholds laid it out), in `state`. */
export function makeHousehold(
  seed: number,
  serial: number,
  size: number,
  state: string,
  geo: StateGeography,
  names: Names,
): HouseholdContext {
  const rng = householdRng(seed, serial);
  const { household, zipIndex } = firstDraws(rng, size, geo, names);
  const zip = geo.zips[zipIndex]!;
  const profile = zipProfile(zip);
  const codes = householdCodes(rng, household, profile, state, household.members[0]!.age);
  return {
    state,
    zip,
    profile,
    household,
    codes,
    address: drawAddress(rng, names, zip, codes.dwelling, serial),
    hhid: randomHex(rng, 12),
  };
}
