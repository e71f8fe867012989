// Typed integer values in the filter editor (lib/filterKinds.splitRanges): spaces inside a band are
// the band's, so "18 - 24" is one valid value and no message quotes a lone "-".
import { describe, expect, it } from 'vitest';
import { rangeProblem, splitRanges } from '../../src/renderer/src/lib/filterKinds';

describe('splitRanges', () => {
  it('keeps a band whole when it is typed with spaces', () => {
    expect(splitRanges('18 - 24')).toEqual(['18-24']);
    expect(splitRanges('18 -24, 65 +  40')).toEqual(['18-24', '65+', '40']);
    expect(splitRanges(' 25-29;30  ,\n45 – 50')).toEqual(['25-29', '30', '45-50']);
    for (const v of splitRanges('18 - 24, 65 +')) expect(rangeProblem('AGE', v)).toBeNull();
  });

  it('still names a value that is not a band', () => {
    expect(splitRanges('18 to 24')).toEqual(['18', 'to', '24']);
    expect(rangeProblem('AGE', 'to')).toMatch(/"to"/);
  });
});
