// The map's pure helpers: shading, the radius circle on the sphere of extensions.md, the fitted
// drawing, and the count report's rows and CSV.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { geoDistance } from 'd3-geo';
import { feature } from 'topojson-client';
import { describe, expect, it } from 'vitest';
import { countyRows, reportCsv, zipRows } from '../../src/renderer/src/lib/geoReport';
import { fieldValueLabel, valuesSummary } from '../../src/renderer/src/lib/valueLabels';
import { MAP_WIDTH, NO_ONE, fitDrawing, milesToDegrees, radiusCircle, shade } from '../../src/renderer/src/lib/mapDrawing';

describe('shade', () => {
  it('is pale grey for no one and darkens with the count, the largest darkest', () => {
    expect(shade(0, 100)).toBe(NO_ONE);
    expect(shade(null, 100)).toBe(NO_ONE);
    const blue = (c: string) => Number(/rgb\((\d+), (\d+), (\d+)\)/.exec(c)![3]);
    const light = shade(1, 100);
    const mid = shade(25, 100);
    const dark = shade(100, 100);
    expect(blue(light)).toBeGreaterThan(blue(mid));
    expect(blue(mid)).toBeGreaterThan(blue(dark));
    expect(dark).toBe('rgb(28, 52, 140)');
    expect(shade(500, 100)).toBe(dark);
  });
});

describe('radiusCircle', () => {
  it('puts every vertex the radius away from the centre on the Earth’s sphere', () => {
    const centre = { lat: 40.7, lon: -74 };
    const ring = radiusCircle(centre, 25).geometry.coordinates[0]!;
    expect(ring.length).toBeGreaterThan(300);
    for (const [lon, lat] of ring) {
      const miles = geoDistance([centre.lon, centre.lat], [lon!, lat!]) * 3958.8;
      expect(miles).toBeCloseTo(25, 6);
    }
    expect(milesToDegrees(3958.8 * Math.PI)).toBeCloseTo(180, 10);
  });
});

describe('fitDrawing', () => {
  const topo = JSON.parse(readFileSync('node_modules/us-atlas/counties-10m.json', 'utf8'));
  const counties = (feature(topo, topo.objects.counties) as unknown as { features: Array<{ id: string }> }).features;
  it.each(['36', '02', '15', '06'])('fits the counties of state %s into a box of the map’s width at most', (fips) => {
    const fc = { type: 'FeatureCollection', features: counties.filter((c) => c.id.startsWith(fips)) } as never;
    const d = fitDrawing(fc);
    expect(Math.max(d.width, d.height)).toBeLessThanOrEqual(MAP_WIDTH + 20);
    expect(Math.max(d.width, d.height)).toBeGreaterThanOrEqual(MAP_WIDTH);
    const [x, y] = d.viewBox.split(' ').map(Number) as [number, number];
    // Every county's path lies inside the view box.
    for (const c of (fc as { features: unknown[] }).features) {
      const numbers = d
        .path(c as never)
        .match(/-?\d+(\.\d+)?/g)!
        .map(Number);
      for (let i = 0; i < numbers.length; i += 2) {
        expect(numbers[i]).toBeGreaterThanOrEqual(x);
        expect(numbers[i]).toBeLessThanOrEqual(x + d.width);
        expect(numbers[i + 1]).toBeGreaterThanOrEqual(y);
        expect(numbers[i + 1]).toBeLessThanOrEqual(y + d.height);
      }
    }
  });
});

describe('the count report', () => {
  it('lists counties by name, most first, and writes them as CSV with their shares', () => {
    const rows = countyRows(
      new Map([
        ['36061', 5],
        ['36047', 12],
        ['09110', 5],
      ]),
    );
    expect(rows.map((r) => [r.key, r.state, r.name, r.count])).toEqual([
      ['36047', 'NY', 'Kings', 12],
      ['09110', 'CT', 'Capitol Planning Region', 5],
      ['36061', 'NY', 'New York', 5],
    ]);
    const csv = parse(reportCsv('county', rows, 22), { columns: true });
    expect(csv[0]).toEqual({ state: 'NY', county_fips: '36047', county: 'Kings', people: '12', percent: '54.55' });
    expect(csv).toHaveLength(3);
  });

  it('lists ZIPs most first', () => {
    const rows = zipRows(
      [
        { value: '10001', count: 2 },
        { value: '11201', count: 9 },
      ],
      'NY',
    );
    expect(rows.map((r) => r.key)).toEqual(['11201', '10001']);
    expect(reportCsv('zip', rows, 11)).toBe('state,zip,people,percent\r\nNY,11201,9,81.82\r\nNY,10001,2,18.18\r\n');
  });
});

describe('county codes in words', () => {
  it('read as the county’s name given the audience’s state, as the bare code without one', () => {
    expect(fieldValueLabel('CNTYCD', '047', 'NY')).toBe('Kings');
    expect(fieldValueLabel('CNTYCD', '047')).toBe('047');
    expect(fieldValueLabel('CNTYCD', '999', 'NY')).toBe('999');
    expect(valuesSummary('CNTYCD', ['047', '081', '061'], 2, 'NY')).toBe('Kings, Queens +1');
    expect(fieldValueLabel('GENDER', 'F', 'NY')).toBe(fieldValueLabel('GENDER', 'F'));
  });
});
