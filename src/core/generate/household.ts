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
import { householdRng } from './stateHouseholds';

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
  householdSize(rng); // the layout's draw: `size` is it, capped by the people the state had left
  const household = drawHousehold(rng, names, size);
  const zip = geo.zips[geo.byPopulation.draw(rng)]!;
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
