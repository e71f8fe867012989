// us-atlas ships its boundaries as JSON files without types; the renderer imports counties-10m.json
// lazily (lib/atlas.ts). Its objects: counties (id: 5-digit FIPS), states (id: 2-digit FIPS) and
// nation, each geometry with properties.name.
declare module 'us-atlas/counties-10m.json' {
  import type { GeometryCollection, Topology } from 'topojson-specification';
  const topology: Topology<{
    counties: GeometryCollection<{ name: string }>;
    states: GeometryCollection<{ name: string }>;
    nation: GeometryCollection;
  }>;
  export default topology;
}
