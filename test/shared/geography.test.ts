// County names (src/shared/countyNames.ts) are the map's own boundary file's, and every county a
// generated record can carry has one; the lookups the app's pasted lists and labels use.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { geography } from '../../src/core/generate/geography';
import { COUNTY_NAMES, STATE_FIPS } from '../../src/shared/countyNames';
import { countiesOf, countyCodeOf, countyLabel, countyName, stateFips, stateOfFips, statesWithCounty } from '../../src/shared/geography';
import { STATE_CODES } from '../../src/shared/states';
import {
  COUNTY_NAMES_PATH,
  NEWER_COUNTIES,
  countyNamesFromAtlas,
  countyNamesModule,
  stateFipsFromAtlas,
} from '../support/writeCountyNames';

describe('the county names table', () => {
  it('is what us-atlas gives (run npx tsx test/support/writeCountyNames.ts after upgrading it)', () => {
    expect(readFileSync(COUNTY_NAMES_PATH, 'utf8')).toBe(countyNamesModule());
    expect(COUNTY_NAMES).toEqual(countyNamesFromAtlas());
    expect(STATE_FIPS).toEqual(stateFipsFromAtlas());
  });

  it('names every county of the 50 states and DC the atlas draws, and the ones made since', () => {
    const atlas = JSON.parse(readFileSync('node_modules/us-atlas/counties-10m.json', 'utf8')) as {
      objects: { counties: { geometries: Array<{ id: string; properties: { name: string } }> } };
    };
    const ours = new Set(Object.values(STATE_FIPS));
    const drawn = atlas.objects.counties.geometries.filter((g) => ours.has(g.id.slice(0, 2)));
    expect(drawn.length).toBeGreaterThan(3100);
    for (const g of drawn) expect(COUNTY_NAMES[g.id]?.startsWith(g.properties.name), g.id).toBe(true);
    expect(Object.keys(COUNTY_NAMES)).toHaveLength(drawn.length + Object.keys(NEWER_COUNTIES).length);
    expect(Object.keys(STATE_FIPS).sort()).toEqual([...STATE_CODES]);
  });

  it('names every county a generated record can be in (the ZIP source of the generator)', () => {
    const missing: string[] = [];
    for (const [state, g] of geography()) {
      expect(stateFips(state)).toBe(g.fips);
      for (const z of g.zips) if (!countyName(state, z.countyCode)) missing.push(`${state} ${g.fips}${z.countyCode}`);
    }
    expect([...new Set(missing)]).toEqual([]);
  });
});

describe('county lookups', () => {
  it('reads a county from its state and code', () => {
    expect(countyName('NY', '047')).toBe('Kings');
    expect(countyName('ny', '061')).toBe('New York');
    expect(countyName('CA', '037')).toBe('Los Angeles');
    expect(countyName('NY', '999')).toBeUndefined();
    expect(countyLabel('NY', '999')).toBe('999');
    expect(stateOfFips('36')).toBe('NY');
    expect(countiesOf('DC')).toEqual([{ code: '001', name: 'District of Columbia' }]);
  });

  it('finds a county by name however it is typed, by code, and the city beside a county of the same name', () => {
    expect(countyCodeOf('NY', 'Kings')).toBe('047');
    expect(countyCodeOf('NY', 'kings county')).toBe('047');
    expect(countyCodeOf('NY', '047')).toBe('047');
    expect(countyCodeOf('NY', '36047')).toBe('047');
    expect(countyCodeOf('NY', '06037')).toBeUndefined();
    expect(countyCodeOf('NY', 'St. Lawrence')).toBe('089');
    expect(countyCodeOf('NY', 'Saint Lawrence County')).toBe('089');
    expect(countyCodeOf('LA', 'Orleans Parish')).toBe('071');
    expect(countyCodeOf('VA', 'Richmond')).toBe('159');
    expect(countyCodeOf('VA', 'Richmond city')).toBe('760');
    expect(countyCodeOf('MD', 'Baltimore City')).toBe('510');
    expect(countyCodeOf('NY', 'Los Angeles')).toBeUndefined();
    expect(countyCodeOf('NY', '')).toBeUndefined();
    expect(statesWithCounty('Los Angeles County')).toEqual(['CA']);
    expect(statesWithCounty('Nowhere')).toEqual([]);
  });
});
