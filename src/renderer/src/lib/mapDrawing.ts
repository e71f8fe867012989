// Drawing the audience on the map: d3-geo projects the atlas's areas (Albers USA, which keeps Alaska
// and Hawaii beside the lower 48), shades each by its count, and draws `near`'s radius as a
// great-circle circle. Pure functions of their inputs, so the tests can check them without a page.
import { geoAlbersUsa, geoCircle, geoPath } from 'd3-geo';
import type { GeoPermissibleObjects } from 'd3-geo';
import type { Feature, Polygon } from 'geojson';
import { EARTH_RADIUS_MILES } from '../../../shared/listControls';

/** The drawing's width in its own units (the SVG scales to its panel). */
export const MAP_WIDTH = 600;
const PAD = 6;

export interface Drawing {
  /** SVG path data of a GeoJSON object ('' when nothing of it falls on the map). */
  path: (object: GeoPermissibleObjects) => string;
  /** The SVG viewBox that holds the areas with a small margin, and its size. */
  viewBox: string;
  width: number;
  height: number;
}

/** A projection fitted to the areas within a MAP_WIDTH square, and the box they then take. */
export function fitDrawing(areas: GeoPermissibleObjects): Drawing {
  const projection = geoAlbersUsa().fitSize([MAP_WIDTH, MAP_WIDTH], areas);
  const draw = geoPath(projection);
  const [[x0, y0], [x1, y1]] = draw.bounds(areas);
  const width = Math.ceil(x1 - x0 + 2 * PAD);
  const height = Math.ceil(y1 - y0 + 2 * PAD);
  return {
    path: (object) => draw(object) ?? '',
    viewBox: `${Math.floor(x0 - PAD)} ${Math.floor(y0 - PAD)} ${width} ${height}`,
    width,
    height,
  };
}

/** Degrees of arc a distance on the Earth's surface spans (the sphere of extensions.md). */
export function milesToDegrees(miles: number): number {
  return (miles / EARTH_RADIUS_MILES) * (180 / Math.PI);
}

/** The circle of all points `miles` from the centre, as a GeoJSON polygon (one vertex a degree of bearing). */
export function radiusCircle(centre: { lat: number; lon: number }, miles: number): Feature<Polygon> {
  return {
    type: 'Feature',
    properties: {},
    geometry: geoCircle().center([centre.lon, centre.lat]).radius(milesToDegrees(miles)).precision(1)(),
  };
}

const LIGHT = [224, 231, 250];
const DARK = [28, 52, 140];
export const NO_ONE = '#f2f4f7';

/**
 * An area's fill for its count: no one is pale grey; otherwise from light to dark blue by the square
 * root of its share of the largest count, so a few big counties do not wash the rest out.
 */
export function shade(count: number | null | undefined, max: number): string {
  if (!count || count <= 0 || max <= 0) return NO_ONE;
  const t = Math.sqrt(Math.min(1, count / max));
  const channel = (i: number) => Math.round(LIGHT[i]! + (DARK[i]! - LIGHT[i]!) * t);
  return `rgb(${channel(0)}, ${channel(1)}, ${channel(2)})`;
}
