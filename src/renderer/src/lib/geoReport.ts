// The count report beside the map: the audience's people by county (named from the atlas's table) or
// by ZIP, most first, with each row's share; and the same as CSV (RFC 4180, lib/csv), the county by
// its full 5-digit FIPS code and its name so any other county list can be joined to it.
import type { ValueCount } from '../../../shared/contract';
import { COUNTY_NAMES } from '../../../shared/countyNames';
import { stateOfFips } from '../../../shared/geography';
import { toCsv } from './csv';

export interface ReportRow {
  /** County: 5-digit FIPS; ZIP: the ZIP. */
  key: string;
  state: string;
  name: string;
  count: number;
}

/** Counties most first (then by FIPS), from counts by 5-digit FIPS. */
export function countyRows(counts: ReadonlyMap<string, number>): ReportRow[] {
  return [...counts]
    .map(([fips, count]) => ({
      key: fips,
      state: stateOfFips(fips.slice(0, 2)) ?? '',
      name: COUNTY_NAMES[fips] ?? `County ${fips.slice(2)}`,
      count,
    }))
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/** ZIPs most first (then by ZIP), from a breakdown by ZIP. */
export function zipRows(values: readonly ValueCount[], state: string): ReportRow[] {
  return values
    .map((v) => ({ key: String(v.value), state, name: String(v.value), count: v.count }))
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

export function reportCsv(by: 'county' | 'zip', rows: readonly ReportRow[], total: number): string {
  const share = (n: number) => (total > 0 ? ((100 * n) / total).toFixed(2) : '0.00');
  if (by === 'county')
    return toCsv([
      ['state', 'county_fips', 'county', 'people', 'percent'],
      ...rows.map((r) => [r.state, r.key, r.name, r.count, share(r.count)]),
    ]);
  return toCsv([['state', 'zip', 'people', 'percent'], ...rows.map((r) => [r.state, r.key, r.count, share(r.count)])]);
}
