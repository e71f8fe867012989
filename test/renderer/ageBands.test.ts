// AGE's one band table (src/shared/ageBands.ts) and the grouping the breakdown bars and the AGE
// checkboxes use: standard bands always, the under-18 band only when someone is in it.
import { describe, expect, it } from 'vitest';
import { AGE_BANDS, ageBandOf, countAgeBands, STANDARD_AGE_BANDS, UNDER_18_BAND } from '../../src/shared/ageBands';
import { rangeProblem } from '../../src/renderer/src/lib/filterKinds';

describe('age bands', () => {
  it('cover every age from 0 without gaps or overlaps, the last open-ended', () => {
    expect(AGE_BANDS.map((b) => b.label)).toEqual(['0-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+']);
    expect(AGE_BANDS[0]).toBe(UNDER_18_BAND);
    expect(AGE_BANDS.slice(1)).toEqual(STANDARD_AGE_BANDS);
    AGE_BANDS.forEach((b, i) => expect(b.lo).toBe(i === 0 ? 0 : AGE_BANDS[i - 1]!.hi + 1));
    expect(AGE_BANDS.at(-1)!.hi).toBe(Infinity);
    expect(ageBandOf(17)?.label).toBe('0-17');
    expect(ageBandOf(18)?.label).toBe('18-24');
    expect(ageBandOf(64)?.label).toBe('55-64');
    expect(ageBandOf(107)?.label).toBe('65+');
    expect(ageBandOf(-1)).toBeUndefined();
    expect(ageBandOf(NaN)).toBeUndefined();
  });

  it('have labels that are valid AGE filter values, so a bar or a checkbox can become a filter', () => {
    for (const b of AGE_BANDS) expect(rangeProblem('AGE', b.label)).toBeNull();
  });

  it('group raw ages and band labels alike, showing the under-18 band only when used', () => {
    const adults = countAgeBands([
      { value: 18, count: 2 },
      { value: '24', count: 3 },
      { value: '25-34', count: 5 },
      { value: 80, count: 1 },
      { value: '', count: 4 },
    ]);
    expect(adults.bands).toEqual([
      { value: '18-24', count: 5 },
      { value: '25-34', count: 5 },
      { value: '35-44', count: 0 },
      { value: '45-54', count: 0 },
      { value: '55-64', count: 0 },
      { value: '65+', count: 1 },
    ]);
    expect(adults.other).toBe(4);
    const young = countAgeBands([
      { value: 16, count: 2 },
      { value: '0-17', count: 1 },
    ]);
    expect(young.bands[0]).toEqual({ value: '0-17', count: 3 });
    expect(young.bands).toHaveLength(7);
    expect(young.other).toBe(0);
  });
});
