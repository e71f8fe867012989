// Assembles the record of one person: the household's shared values (address, geography, census,
// household codes) and the person's own (name, age, phones, codes, interest scores), in FIELDS
// order. Field positions are resolved once; a record starts as a copy of a template holding each
// field's empty value ('' or 0), so fields not set here are "absent" as the interface defines it.
import { FIELDS, fieldIndex } from '../../shared/fields';
import type { Address } from './address';
import { areaCodeFor } from './areaCodes';
import { CENSUS_FIELDS, type ZipProfile } from './census';
import { HOUSEHOLD_CODE_FIELDS, PERSON_CODE_FIELDS, personCodes, type HouseholdCodes } from './codeBook';
import type { ZipArea } from './geography';
import { drawDob, type Household, type Person } from './people';
import type { Prng } from './prng';
import { fillScores } from './scores';
import { DIGITS4 } from './strings';

/** A generated record: values in FIELDS order (mutable while it is built). */
export type GeneratedRecord = Array<string | number>;

function at(name: string): number {
  const i = fieldIndex(name);
  if (i < 0) throw new Error(`The generator names a field the catalog lacks: ${name}`);
  return i;
}

const TEMPLATE: GeneratedRecord = FIELDS.map((f) => (f.type === 'string' ? '' : 0));
const CENSUS = CENSUS_FIELDS.map(at);
const HOUSEHOLD_CODES = HOUSEHOLD_CODE_FIELDS.map(at);
const PERSON_CODES = PERSON_CODE_FIELDS.map(at);
const NAMED = [
  'PID',
  'HHID',
  'FNAME',
  'MNAME',
  'LNAME',
  'SUFFIX',
  'GENDER',
  'AGE',
  'DOB',
  'ADDRID',
  'ADDRESS',
  'HOUSE',
  'PREDIR',
  'STREET',
  'STRTYPE',
  'POSTDIR',
  'APTTYPE',
  'APTNB',
  'CITY',
  'STATE',
  'ZIP',
  'Z4',
  'DPC',
  'Z4TYPE',
  'CRTE',
  'DPV',
  'VACANT',
  'MSA',
  'CBSA',
  'STATECD',
  'CNTYCD',
  'CENSUSTRACT',
  'CENSUSBLCK',
  'CNTYSIZECD',
  'GEOLEVEL',
  'LATITUDE',
  'LONGITUDE',
] as const;
const F = Object.fromEntries(NAMED.map((n) => [n, at(n)])) as Record<(typeof NAMED)[number], number>;
const {
  PID,
  HHID,
  FNAME,
  MNAME,
  LNAME,
  SUFFIX,
  GENDER,
  AGE,
  DOB,
  ADDRID,
  ADDRESS,
  HOUSE,
  PREDIR,
  STREET,
  STRTYPE,
  POSTDIR,
  APTTYPE,
  APTNB,
  CITY,
  STATE,
  ZIP,
  Z4,
  DPC,
  Z4TYPE,
  CRTE,
  DPV,
  VACANT,
  MSA,
  CBSA,
  STATECD,
  CNTYCD,
  CENSUSTRACT,
  CENSUSBLCK,
  CNTYSIZECD,
  GEOLEVEL,
  LATITUDE,
  LONGITUDE,
} = F;
// [phone, its DNC flag, chance of the phone (given the one before), chance of DNC given the phone]
const PHONES = [
  [at('PHONE'), at('DNC'), 0.72, 0.33],
  [at('PHONE2'), at('DNC2'), 0.38, 0.25],
  [at('PHONE3'), at('DNC3'), 0.3, 0.2],
] as const;
// Exchanges 200-999, without the N11 service codes and 555.
const EXCHANGES = Array.from({ length: 800 }, (_, i) => String(200 + i)).filter((x) => x.slice(1) !== '11' && x !== '555');
const dob = { year: 0, text: '' };

export interface HouseholdContext {
  state: string;
  zip: ZipArea;
  profile: ZipProfile;
  address: Address;
  hhid: string;
  household: Household;
  codes: HouseholdCodes;
}

/**
 * The record of one member of a household, as a new array. (Reusing one array for every record is
 * slower: a long-lived array holding fresh strings costs the garbage collector more than new ones.)
 */
export function personRecord(rng: Prng, h: HouseholdContext, p: Person, pid: string): GeneratedRecord {
  const r = TEMPLATE.slice();
  const a = h.address;
  const z = h.zip;
  r[PID] = pid;
  r[HHID] = h.hhid;
  r[FNAME] = p.first;
  r[MNAME] = p.middle;
  r[LNAME] = p.last;
  r[SUFFIX] = p.suffix;
  r[GENDER] = p.gender;
  r[AGE] = p.age;
  drawDob(rng, p.age, dob);
  r[DOB] = dob.text;
  r[ADDRID] = a.addrId;
  r[ADDRESS] = a.line;
  r[HOUSE] = a.house;
  r[PREDIR] = a.predir;
  r[STREET] = a.street;
  r[STRTYPE] = a.strtype;
  r[POSTDIR] = a.postdir;
  r[APTTYPE] = a.apttype;
  r[APTNB] = a.aptnb;
  r[CITY] = z.city;
  r[STATE] = h.state;
  r[ZIP] = z.zip;
  r[Z4] = a.z4;
  r[DPC] = a.dpc;
  r[Z4TYPE] = a.z4type;
  r[CRTE] = a.crte;
  r[DPV] = a.dpv;
  r[VACANT] = a.vacant;
  r[MSA] = z.county.msa;
  r[CBSA] = z.county.cbsa;
  r[STATECD] = z.stateFips;
  r[CNTYCD] = z.countyCode;
  r[CENSUSTRACT] = a.tract;
  r[CENSUSBLCK] = a.block;
  r[CNTYSIZECD] = z.county.sizeCode;
  r[GEOLEVEL] = a.geolevel;
  r[LATITUDE] = a.latitude;
  r[LONGITUDE] = a.longitude;
  // Phones: a second and third number only beside a first and second; DNC only beside its phone.
  for (const [phone, dnc, rate, dncRate] of PHONES) {
    if (!rng.chance(rate)) break;
    r[phone] = areaCodeFor(rng, z) + EXCHANGES[rng.int(EXCHANGES.length)]! + DIGITS4[rng.int(10_000)]!;
    if (rng.chance(dncRate)) r[dnc] = 'Y';
  }
  const values = h.profile.values;
  for (let k = 0; k < CENSUS.length; k++) r[CENSUS[k]!] = values[k]!;
  const shared = h.codes.values;
  for (let k = 0; k < HOUSEHOLD_CODES.length; k++) r[HOUSEHOLD_CODES[k]!] = shared[k]!;
  const own = personCodes(rng, p, dob.year, h.codes, h.household.children);
  for (let k = 0; k < PERSON_CODES.length; k++) r[PERSON_CODES[k]!] = own[k]!;
  fillScores(r, rng, p.gender === 'F', p.age, h.codes.incomeU > 0.8);
  return r;
}
