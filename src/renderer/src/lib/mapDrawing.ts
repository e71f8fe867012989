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

/** The map's colours in one scheme: SVG attributes, so an exported picture looks like the screen. */
export interface MapPalette {
  readonly background: string;
  /** An area where no one of the audience lives. */
  readonly none: string;
  /** The shade of the fewest people and of the most, as RGB. */
  readonly low: readonly [number, number, number];
  readonly high: readonly [number, number, number];
  /** Lines between areas, state borders, the legend's swatch edges. */
  readonly areaStroke: string;
  readonly border: string;
  readonly swatchStroke: string;
}

export const LIGHT_MAP: MapPalette = {
  background: '#ffffff',
  none: '#f2f4f7',
  low: [224, 231, 250],
  high: [28, 52, 140],
  areaStroke: '#ffffff',
  border: '#667085',
  swatchStroke: '#cfd4dc',
};

/** Dark: the panel's colour behind, more people brighter. */
export const DARK_MAP: MapPalette = {
  background: '#1b1f27',
  none: '#262b35',
  low: [44, 58, 102],
  high: [169, 188, 247],
  areaStroke: '#12151b',
  border: '#a3acb9',
  swatchStroke: '#3b4350',
};

export const NO_ONE = LIGHT_MAP.none;

/**
 * An area's fill for its count: no one is the palette's grey; otherwise from the low shade to the
 * high one by the square root of its share of the largest count, so a few big counties do not wash
 * the rest out.
 */
export function shade(count: number | null | undefined, max: number, palette: MapPalette = LIGHT_MAP): string {
  if (!count || count <= 0 || max <= 0) return palette.none;
  const t = Math.sqrt(Math.min(1, count / max));
  const channel = (i: number) => Math.round(palette.low[i]! + (palette.high[i]! - palette.low[i]!) * t);
  return `rgb(${channel(0)}, ${channel(1)}, ${channel(2)})`;
}
