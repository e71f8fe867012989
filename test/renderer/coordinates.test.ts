// A pasted "lat, lon" split into the distance control's two boxes (lib/coordinates).
import { describe, expect, it } from 'vitest';
import { parsePastedPoint } from '../../src/renderer/src/lib/coordinates';

describe('a pasted point', () => {
  it('splits a latitude and longitude at a comma, a semicolon or spaces', () => {
    expect(parsePastedPoint('34.05, -118.24')).toEqual({ lat: '34.05', lon: '-118.24' });
    expect(parsePastedPoint(' 34.05 -118.24 ')).toEqual({ lat: '34.05', lon: '-118.24' });
    expect(parsePastedPoint('(40.7128;-74.0060)')).toEqual({ lat: '40.7128', lon: '-74.0060' });
    expect(parsePastedPoint('.5,+3')).toEqual({ lat: '.5', lon: '+3' });
  });

  it('is not a point when it is one number, three, words, or out of range', () => {
    for (const text of ['34.05', '1, 2, 3', 'Los Angeles', '34.05, west', '91, 10', '10, 181', ''])
      expect(parsePastedPoint(text), text).toBeNull();
  });
});
