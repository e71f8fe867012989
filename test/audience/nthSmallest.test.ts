// The lookalike step's threshold (listSteps.ts, nthSmallest): the k-th smallest of some scores found by
// quickselect, the same as sorting them and taking [k], for every k of lists with many ties, all
// ties, negative scores and one value, and for a list of a hundred thousand.
import { describe, expect, it } from 'vitest';
import { nthSmallest } from '../../src/core/audience/contract/listSteps';

let seed = 11;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;

describe('nthSmallest', () => {
  it('gives what a sort gives at every index, with ties', () => {
    for (let round = 0; round < 300; round++) {
      const size = 1 + Math.floor(random() * 80);
      const spread = [1, 3, 20, 1000][round % 4]!;
      const values = Float64Array.from({ length: size }, () => Math.floor(random() * spread) - Math.floor(spread / 2));
      const sorted = Float64Array.from(values).sort();
      for (let k = 0; k < size; k++) expect(nthSmallest(Float64Array.from(values), k), `round ${round}, k ${k}`).toBe(sorted[k]);
    }
  });

  it('gives what a sort gives in a large list', () => {
    const values = Float64Array.from({ length: 100_000 }, () => Math.floor(random() * 5000) - 2500);
    const sorted = Float64Array.from(values).sort();
    for (const k of [0, 1, 4999, 50_000, 94_999, 99_999]) expect(nthSmallest(Float64Array.from(values), k)).toBe(sorted[k]);
  });
});
