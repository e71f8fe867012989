// The map's boundaries, offline: us-atlas's counties-10m.json (the Census Bureau's 2017 cartographic
// boundaries, ~800 KB) bundled with the app and imported only when a map is first drawn, so the first
// paint does not pay for it. topojson-client turns its arcs into GeoJSON features keyed by FIPS code.
import type { Feature, FeatureCollection, Geometry, MultiLineString } from 'geojson';
import { feature, mesh } from 'topojson-client';

export type Area = Feature<Geometry, { name: string }> & { id: string };

export interface Atlas {
  /** Every state (2-digit FIPS id) and county (5-digit FIPS id). */
  states: Area[];
  counties: Area[];
  /** The lines between states, drawn once (not twice, as each state's outline would). */
  stateBorders: MultiLineString;
}

let loading: Promise<Atlas> | null = null;

async function read(): Promise<Atlas> {
  const topo = (await import('us-atlas/counties-10m.json')).default;
  const states = feature(topo, topo.objects.states) as FeatureCollection<Geometry, { name: string }>;
  const counties = feature(topo, topo.objects.counties) as FeatureCollection<Geometry, { name: string }>;
  return {
    states: states.features as Area[],
    counties: counties.features as Area[],
    stateBorders: mesh(topo, topo.objects.states, (a, b) => a !== b),
  };
}

/** The atlas, read once; a failed read is tried again on the next call. */
export function loadAtlas(): Promise<Atlas> {
  loading ??= read().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}
