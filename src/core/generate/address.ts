// A household's address in a real ZIP area: street parts, ZIP+4 and delivery codes, geography
// codes and coordinates near the ZIP's point.
import { Prng, sampler } from './prng';
import type { ZipArea } from './geography';
import type { NameSamplers } from './names';

const STREET_WORDS = ['MAIN', 'OAK', 'PINE', 'MAPLE', 'CEDAR', 'ELM', 'WASHINGTON', 'LAKE', 'HILL', 'PARK', 'RIDGE', 'CHURCH', 'MILL', 'SPRING', 'HIGHLAND', 'SUNSET', 'RIVER', 'FOREST', 'MEADOW', 'LINCOLN', 'JEFFERSON', 'FRANKLIN', 'WALNUT', 'CHESTNUT', 'WILLOW', 'CHERRY', 'VALLEY', 'SCHOOL', 'CENTER', 'MARKET'];
const STREET_TYPES = sampler([['ST', 30], ['AVE', 18], ['RD', 16], ['DR', 14], ['LN', 8], ['CT', 5], ['BLVD', 3], ['WAY', 3], ['PL', 2], ['CIR', 1]] as const);
const DIRECTIONS = sampler([['', 86], ['N', 4], ['S', 4], ['E', 3], ['W', 3]] as const);
const UNIT_TYPES = ['APT', 'UNIT', 'STE'] as const;

export interface Address {
  addrId: string;
  house: string;
  predir: string;
  street: string;
  strtype: string;
  postdir: string;
  apttype: string;
  aptnb: string;
  line: string;
  z4: string;
  dpc: string;
  z4type: string;
  crte: string;
  dpv: string;
  vacant: string;
  latitude: number;
  longitude: number;
  censusTract: string;
  censusBlock: string;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function randomAddress(rng: Prng, names: NameSamplers, area: ZipArea, multiUnit: boolean): Address {
  const house = String(rng.between(1, rng.chance(0.7) ? 9999 : 29999));
  const predir = DIRECTIONS.sample(rng);
  const street = rng.chance(0.6) ? rng.pick(STREET_WORDS) : names.last.sample(rng);
  const strtype = STREET_TYPES.sample(rng);
  const postdir = rng.chance(0.03) ? rng.pick(['N', 'S', 'E', 'W']) : '';
  const apttype = multiUnit ? rng.pick(UNIT_TYPES) : '';
  const aptnb = multiUnit ? String(rng.between(1, 40) * (rng.chance(0.5) ? 100 : 1) + rng.int(20)) : '';
  const line = [house, predir, street, strtype, postdir, apttype, aptnb].filter(Boolean).join(' ');
  // ZIP areas are a few miles across: scatter addresses within about 0.03 degrees of the point.
  const latitude = round6(area.latitude + (rng.float() - 0.5) * 0.06);
  const longitude = round6(area.longitude + (rng.float() - 0.5) * 0.06);
  const rural = area.countyZips < 8;
  return {
    addrId: String(rng.between(1, 9)) + rng.digits(11),
    house, predir, street, strtype, postdir, apttype, aptnb, line,
    z4: rng.digits(4),
    dpc: rng.digits(2),
    z4type: multiUnit ? 'H' : rng.chance(0.02) ? 'P' : 'S',
    crte: (rural ? 'R' : 'C') + String(rng.between(1, rural ? 30 : 99)).padStart(3, '0'),
    dpv: rng.chance(0.97) ? 'Y' : rng.chance(0.5) ? 'S' : 'D',
    vacant: rng.chance(0.02) ? 'Y' : 'N',
    latitude,
    longitude,
    censusTract: String(Number(area.zip) % 9000 + 100).padStart(4, '0') + rng.digits(2),
    censusBlock: String(rng.between(1, 4)) + rng.digits(3),
  };
}
