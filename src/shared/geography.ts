// Counties by name: every record carries its state's and county's FIPS codes (STATECD, CNTYCD), and
// src/shared/countyNames.ts (generated from the map's own boundary file) names them. The app filters
// on CNTYCD, the three-digit code within the state, exactly as the API takes it; names are for people.
import { COUNTY_NAMES, STATE_FIPS } from './countyNames';

/** The two-digit FIPS code of a USPS state code ("36" for NY), or undefined. */
export function stateFips(state: string): string | undefined {
  return STATE_FIPS[state.toUpperCase()];
}

/** The USPS code of a two-digit state FIPS code, or undefined. */
export function stateOfFips(fips: string): string | undefined {
  return Object.keys(STATE_FIPS).find((code) => STATE_FIPS[code] === fips);
}

/** A county's name from its state and three-digit CNTYCD ("Kings" for NY, 047), or undefined. */
export function countyName(state: string, cntycd: string): string | undefined {
  const fips = stateFips(state);
  return fips ? COUNTY_NAMES[fips + cntycd] : undefined;
}

/** A county's name, or its bare code when the table does not know it. */
export function countyLabel(state: string, cntycd: string): string {
  return countyName(state, cntycd) ?? cntycd;
}

/** How a typed county name compares: case, a trailing "County"/"Parish"/"Borough" and punctuation do not matter. */
export function countyNameKey(name: string): string {
  return name
    .toUpperCase()
    .replace(/\bST\b\.?/g, 'SAINT')
    .replace(/\b(COUNTY|PARISH|BOROUGH|CENSUS AREA|MUNICIPALITY|CITY AND BOROUGH)\s*$/, '')
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();
}

/** The counties of a state: three-digit CNTYCD and name, by code. */
export function countiesOf(state: string): Array<{ code: string; name: string }> {
  const fips = stateFips(state);
  if (!fips) return [];
  return Object.keys(COUNTY_NAMES)
    .filter((id) => id.startsWith(fips))
    .map((id) => ({ code: id.slice(2), name: COUNTY_NAMES[id]! }));
}

/** The CNTYCD of a county of the state named (or coded) so, or undefined. "Kings County", "kings" and "047" all find 047 in NY. */
export function countyCodeOf(state: string, text: string): string | undefined {
  const trimmed = text.trim();
  const counties = countiesOf(state);
  if (/^\d{3}$/.test(trimmed)) return counties.some((c) => c.code === trimmed) ? trimmed : undefined;
  if (/^\d{5}$/.test(trimmed)) return trimmed.slice(0, 2) === stateFips(state) && COUNTY_NAMES[trimmed] ? trimmed.slice(2) : undefined;
  const key = countyNameKey(trimmed);
  if (!key) return undefined;
  return counties.find((c) => countyNameKey(c.name) === key)?.code;
}

/** The states (USPS codes) that have a county of this name, for saying where a county that is not in this state lies. */
export function statesWithCounty(text: string): string[] {
  const key = countyNameKey(text);
  if (!key) return [];
  const out = new Set<string>();
  for (const [id, name] of Object.entries(COUNTY_NAMES))
    if (countyNameKey(name) === key) out.add(stateOfFips(id.slice(0, 2)) ?? id.slice(0, 2));
  return [...out].sort();
}
