// Assembles the record values (catalog order) of each member of a household.
import { FIELDS, fieldIndex } from '../../shared/fields';
import type { RecordValues } from '../dataset/recordFormat';
import type { Address } from './address';
import { buildSamplers, FLAG_RATES, HOUSEHOLD_CODES, ONE_OF_GROUPS, PERSON_CODES } from './codeBook';
import { CENSUS_FIELDS } from './census';
import type { ZipArea } from './geography';
import { dobFor, type Person } from './people';
import { Prng, sampler } from './prng';

const at = (name: string): number => {
  const i = fieldIndex(name);
  if (i < 0) throw new Error(`Generator names unknown field ${name}`);
  return i;
};
const byGroup = (group: string) => FIELDS.flatMap((f, i) => (f.group === group ? [i] : []));

const TEMPLATE: Array<string | number> = FIELDS.map((f) => (f.type === 'string' ? '' : 0));
const MS = byGroup('mail_order_score');
const CPI = byGroup('interest_index');
const CENSUS = CENSUS_FIELDS.map(at);
// Per-field rates from the field's position, so each score and flag has its own plausible level.
const MS_RATE = MS.map((_, k) => 0.06 + ((k * 37) % 29) / 100);
const CPI_CENTRE = CPI.map((_, k) => 2 + ((k * 13) % 5));
const ONE_OF = ONE_OF_GROUPS.map((g) => sampler(g.map(([name, w]) => [name ? at(name) : -1, w] as const)));
const ONE_OF_FIELDS = new Set(ONE_OF_GROUPS.flatMap((g) => g.map(([n]) => n)).filter(Boolean));
const FLAGS = byGroup('behaviour_flag')
  .filter((i) => !ONE_OF_FIELDS.has(FIELDS[i]!.name))
  .map((i, k) => [i, FLAG_RATES[FIELDS[i]!.name] ?? 0.05 + ((k * 7) % 23) / 100] as const);
const HOUSEHOLD = buildSamplers(HOUSEHOLD_CODES).map(([f, s]) => [at(f), s] as const);
const PERSON = buildSamplers(PERSON_CODES).map(([f, s]) => [at(f), s] as const);
const PHONES = [['PHONE', 'DNC', 0.86], ['PHONE2', 'DNC2', 0.31], ['PHONE3', 'DNC3', 0.08]].map(([p, d, r]) => [at(p as string), at(d as string), r as number] as const);
const GEOLEVEL = sampler([['B', 90], ['T', 8], ['Z', 2]] as const);
const I = Object.fromEntries(
  ['PID', 'HHID', 'FNAME', 'MNAME', 'LNAME', 'SUFFIX', 'GENDER', 'AGE', 'DOB', 'ADDRID', 'ADDRESS', 'HOUSE', 'PREDIR', 'STREET', 'STRTYPE', 'POSTDIR', 'APTTYPE', 'APTNB', 'CITY', 'STATE', 'ZIP', 'Z4', 'DPC', 'Z4TYPE', 'CRTE', 'DPV', 'VACANT', 'MSA', 'CBSA', 'STATECD', 'CNTYCD', 'CENSUSTRACT', 'CENSUSBLCK', 'CNTYSIZECD', 'GEOLEVEL', 'LATITUDE', 'LONGITUDE', 'LOR', 'HHNBR', 'MARRIEDCD', 'SGLPARENT', 'HHNBRSR', 'CHILD', 'CHILDAGECD_6', 'CHILDAGECD_6_10', 'CHILDAGECD_11_15', 'CHILDAGECD_16_17', 'CHILDNBRCD', 'YRBLD', 'DWELLTYPE', 'GENERATION_CLSTRDCD', 'GENERATION_GRPCD', 'LIFESTG_CLSTRD', 'LIFESTG_GRPCD']
    .map((n) => [n, at(n)]),
) as Record<string, number>;

export interface HouseholdContext {
  state: string;
  stateFips: string;
  areaCodes: readonly number[];
  area: ZipArea;
  address: Address;
  census: number[];
  hhid: string;
  members: Person[];
}

function countyCode(stateFips: string, county: string, modulo: number, base: number): string {
  let h = 2166136261;
  for (const ch of stateFips + county) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return String(base + ((h >>> 0) % modulo));
}

function generation(age: number): [string, string] {
  if (age <= 29) return ['01', 'Z'];
  if (age <= 45) return ['02', 'M'];
  if (age <= 61) return ['03', 'X'];
  if (age <= 80) return ['04', 'B'];
  return ['05', 'S'];
}

/** Household-level values shared by every member. */
function householdValues(rng: Prng, h: HouseholdContext): Array<[number, string | number]> {
  const a = h.address;
  const head = h.members[0]!;
  const hasChildren = head.age >= 25 && head.age <= 60 && rng.chance(0.38);
  const couple = h.members.some((m) => m.married);
  const seniors = h.members.filter((m) => m.age >= 65).length;
  const values: Array<[number, string | number]> = [
    [I.HHID!, h.hhid], [I.ADDRID!, a.addrId], [I.ADDRESS!, a.line], [I.HOUSE!, a.house], [I.PREDIR!, a.predir],
    [I.STREET!, a.street], [I.STRTYPE!, a.strtype], [I.POSTDIR!, a.postdir], [I.APTTYPE!, a.apttype], [I.APTNB!, a.aptnb],
    [I.CITY!, h.area.city], [I.STATE!, h.state], [I.ZIP!, h.area.zip], [I.Z4!, a.z4], [I.DPC!, a.dpc], [I.Z4TYPE!, a.z4type],
    [I.CRTE!, a.crte], [I.DPV!, a.dpv], [I.VACANT!, a.vacant],
    [I.MSA!, countyCode(h.stateFips, h.area.countyFips, 8999, 1000)], [I.CBSA!, countyCode(h.stateFips, h.area.countyFips, 39999, 10000)],
    [I.STATECD!, h.stateFips], [I.CNTYCD!, h.area.countyFips], [I.CENSUSTRACT!, a.censusTract], [I.CENSUSBLCK!, a.censusBlock],
    [I.CNTYSIZECD!, h.area.countyZips >= 60 ? 'A' : h.area.countyZips >= 25 ? 'B' : h.area.countyZips >= 8 ? 'C' : 'D'],
    [I.GEOLEVEL!, GEOLEVEL.sample(rng)], [I.LATITUDE!, a.latitude], [I.LONGITUDE!, a.longitude],
    [I.LOR!, Math.min(40, Math.floor(-Math.log(1 - rng.float()) * 7))], [I.HHNBR!, h.members.length],
    [I.HHNBRSR!, String(seniors)], [I.CHILD!, hasChildren ? 'Y' : ''], [I.SGLPARENT!, hasChildren && !couple && rng.chance(0.6) ? 'Y' : ''],
    [I.CHILDNBRCD!, hasChildren ? String(rng.between(1, 4)) : '0'],
    // S single family, M multi-unit (the address has a unit), T mobile home or trailer.
    [I.DWELLTYPE!, a.apttype ? 'M' : rng.chance(0.06) ? 'T' : 'S'],
    [I.YRBLD!, String(Math.max(1900, 2023 - Math.floor(-Math.log(1 - rng.float()) * 30)))],
  ];
  if (hasChildren) for (const f of ['CHILDAGECD_6', 'CHILDAGECD_6_10', 'CHILDAGECD_11_15', 'CHILDAGECD_16_17']) values.push([I[f]!, rng.chance(0.4) ? 'Y' : '']);
  for (const [i, s] of HOUSEHOLD) values.push([i, s.sample(rng)]);
  CENSUS.forEach((i, k) => values.push([i, h.census[k]!]));
  return values;
}

function phone(rng: Prng, areaCodes: readonly number[]): string {
  return `${rng.pick(areaCodes)}${rng.between(200, 999)}${rng.digits(4)}`;
}

/** The records of a household's members, PIDs supplied by the caller (they fix the order). */
export function householdRecords(rng: Prng, h: HouseholdContext, pids: readonly string[]): RecordValues[] {
  const shared = householdValues(rng, h);
  return h.members.map((m, k) => {
    const r = TEMPLATE.slice();
    for (let k = 0; k < shared.length; k++) r[shared[k]![0]] = shared[k]![1];
    r[I.PID!] = pids[k]!;
    r[I.FNAME!] = m.first;
    r[I.MNAME!] = m.middle;
    r[I.LNAME!] = m.last;
    r[I.SUFFIX!] = m.suffix;
    r[I.GENDER!] = m.gender;
    r[I.AGE!] = m.age;
    r[I.DOB!] = dobFor(rng, m.age);
    r[I.MARRIEDCD!] = m.married ? 'M' : 'S';
    const [gen, genGroup] = generation(m.age);
    r[I.GENERATION_CLSTRDCD!] = gen;
    r[I.GENERATION_GRPCD!] = genGroup;
    r[I.LIFESTG_CLSTRD!] = String(Math.min(21, Math.floor((m.age - 18) / 4) + 1 + (m.married ? 0 : 1))).padStart(2, '0');
    r[I.LIFESTG_GRPCD!] = String.fromCharCode(65 + Math.min(6, Math.floor((m.age - 18) / 12)));
    for (const [p, d, rate] of PHONES) {
      if (rng.chance(rate)) {
        r[p] = phone(rng, h.areaCodes);
        r[d] = rng.chance(0.27) ? 'Y' : '';
      }
    }
    for (let k = 0; k < PERSON.length; k++) r[PERSON[k]![0]] = PERSON[k]![1].sample(rng);
    for (let k = 0; k < MS.length; k++) {
      if (rng.float() < MS_RATE[k]!) r[MS[k]!] = Math.min(9, 1 + Math.floor(-Math.log(1 - rng.float()) * 1.2));
    }
    for (let k = 0; k < CPI.length; k++) {
      // One draw gives both halves of a triangular spread around the field's centre.
      const x = rng.next();
      const spread = ((x & 0xffff) + (x >>> 16)) / 65536 - 1;
      r[CPI[k]!] = Math.max(0, Math.min(9, Math.round(CPI_CENTRE[k]! + spread * 5)));
    }
    for (const s of ONE_OF) {
      const i = s.sample(rng);
      if (i >= 0) r[i] = 'Y';
    }
    for (let k = 0; k < FLAGS.length; k++) if (rng.float() < FLAGS[k]![1]) r[FLAGS[k]![0]] = 'Y';
    return r;
  });
}
