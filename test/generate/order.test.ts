// The generated file is in an order a real one could have: within a state in PID order, neighbours
// are no likelier to share a household, city or ZIP than in a random order of the same people, and
// household members sit anywhere in the state. Also the pieces that make this so: the keyed
// permutation and the household layout.
import { beforeAll, describe, expect, it } from 'vitest';
import { generateRecords } from '../../src/core/generate';
import { KeyedPermutation } from '../../src/core/generate/permutation';
import { Prng } from '../../src/core/generate/prng';
import { StateHouseholds } from '../../src/core/generate/stateHouseholds';
import { fieldIndex } from '../../src/shared/fields';

type Rec = Array<string | number>;
const ROWS = 50_000;
const SEED = 424242;
let records: Rec[] = [];
const at = (name: string) => {
  const i = fieldIndex(name);
  if (i < 0) throw new Error(name);
  return i;
};

beforeAll(() => {
  records = [...generateRecords(ROWS, SEED)];
});

/** Records grouped by state, in file (PID) order. */
function byState(): Rec[][] {
  const states = new Map<string, Rec[]>();
  for (const r of records) {
    const list = states.get(r[at('STATE')] as string) ?? [];
    list.push(r);
    states.set(r[at('STATE')] as string, list);
  }
  return [...states.values()];
}

/**
 * Neighbouring pairs (within a state) that agree on `field`, and how many a random order of the
 * same people would give: a state of n people whose values occur k_v times has n - 1 neighbouring
 * pairs, each agreeing with chance sum k_v (k_v - 1) / (n (n - 1)), so sum k_v (k_v - 1) / n pairs.
 */
function neighbours(field: string): { observed: number; expected: number } {
  let observed = 0;
  let expected = 0;
  const f = at(field);
  for (const people of byState()) {
    const counts = new Map<unknown, number>();
    for (const r of people) counts.set(r[f], (counts.get(r[f]) ?? 0) + 1);
    for (const k of counts.values()) expected += (k * (k - 1)) / people.length;
    for (let i = 1; i < people.length; i++) if (people[i]![f] === people[i - 1]![f]) observed++;
  }
  return { observed, expected };
}

// Agreeing neighbours are rare events over ~50,000 pairs, so their count is close to Poisson with
// the chance mean E (standard deviation sqrt E; pairs sharing a person add a little for big cities).
// Six standard deviations: a correct random order fails with a chance under 1e-8 for any seed,
// while the old household order (51.5% of pairs in one household) was thousands of them away.
const nearChance = ({ observed, expected }: { observed: number; expected: number }) => {
  expect(observed).toBeGreaterThan(expected - 6 * Math.sqrt(expected));
  expect(observed).toBeLessThan(expected + 6 * Math.sqrt(expected));
};

describe('PID order says nothing about household or place', () => {
  it('puts neighbours in one household no more often than chance', () => {
    const households = neighbours('HHID');
    // About 1.55 pairs a state (mean household of 2.06 adults): ~80 of 50,000, 0.16%.
    expect(households.expected).toBeGreaterThan(40);
    expect(households.expected).toBeLessThan(160);
    nearChance(households);
  });

  it('puts neighbours in one city or ZIP no more often than chance (no runs of a place)', () => {
    nearChance(neighbours('CITY'));
    nearChance(neighbours('ZIP'));
  });

  it('spreads a household over its whole state: members are a third of the state apart on average, as random ranks are', () => {
    // For two independent uniform ranks U, V in [0, 1), E|U - V| = 1/3 (standard deviation 0.236 a
    // pair); with ~25,000 pairs the mean is within 0.02 of 1/3 by more than ten standard errors.
    let total = 0;
    let pairs = 0;
    for (const people of byState()) {
      const ranks = new Map<string, number[]>();
      people.forEach((r, i) => {
        const list = ranks.get(r[at('HHID')] as string) ?? [];
        list.push(i / people.length);
        ranks.set(r[at('HHID')] as string, list);
      });
      for (const list of ranks.values())
        for (let a = 0; a < list.length; a++)
          for (let b = a + 1; b < list.length; b++) {
            total += Math.abs(list[a]! - list[b]!);
            pairs++;
          }
    }
    expect(pairs).toBeGreaterThan(15_000);
    expect(Math.abs(total / pairs - 1 / 3)).toBeLessThan(0.02);
  });

  it('keeps PIDs unique and in (STATE, PID) order, and the same rows and seed give the same file', () => {
    const pid = at('PID');
    const state = at('STATE');
    expect(new Set(records.map((r) => r[pid])).size).toBe(ROWS);
    for (let i = 1; i < ROWS; i++) {
      const [a, b] = [records[i - 1]!, records[i]!];
      if (!(a[state]! < b[state]! || (a[state] === b[state] && a[pid]! < b[pid]!))) throw new Error(`out of order at ${i}`);
    }
    const again = [...generateRecords(ROWS, SEED)];
    for (let i = 0; i < ROWS; i++) if (JSON.stringify(again[i]) !== JSON.stringify(records[i])) throw new Error(`record ${i} differs`);
  });
});

describe('KeyedPermutation', () => {
  it('is a bijection on 0..n-1 for every n, and the key chooses it', () => {
    const keyOf = (s: number) => {
      const rng = new Prng(s);
      return Array.from({ length: 6 }, () => rng.next());
    };
    for (const n of [...Array.from({ length: 130 }, (_, i) => i + 1), 1000, 4096, 4097, 65_537, 100_003]) {
      const p = new KeyedPermutation(n, keyOf(n));
      const seen = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const x = p.at(i);
        if (!(x >= 0 && x < n && Number.isInteger(x)) || seen[x]) throw new Error(`n ${n}: ${i} -> ${x}`);
        seen[x] = 1;
      }
    }
    const a = new KeyedPermutation(10_000, keyOf(1));
    const b = new KeyedPermutation(10_000, keyOf(2));
    let same = 0;
    for (let i = 0; i < 10_000; i++) if (a.at(i) === b.at(i)) same++;
    expect(same).toBeLessThan(10); // one expected by chance
    expect(() => new KeyedPermutation(0, keyOf(1))).toThrow(/1 to 2\^32/);
    expect(() => new KeyedPermutation(5, [1, 2])).toThrow(/round keys/);
  });

  it('sends neighbouring inputs to unrelated places', () => {
    const n = 100_000;
    const p = new KeyedPermutation(n, [11, 22, 33, 44, 55, 66]);
    // |p(i+1) - p(i)| / n for random places averages 1/3.
    let gap = 0;
    for (let i = 1; i < n; i++) gap += Math.abs(p.at(i) - p.at(i - 1)) / n;
    expect(Math.abs(gap / (n - 1) - 1 / 3)).toBeLessThan(0.01);
  });
});

describe('StateHouseholds', () => {
  it('lays a state out in households of 1 to 6 that cover it exactly, and finds the household of any place', () => {
    for (const people of [1, 2, 7, 1000, 20_001]) {
      const layout = new StateHouseholds(SEED, 123, people);
      let next = 0;
      for (let h = 0; h < layout.count; h++) {
        expect(layout.start(h)).toBe(next);
        expect(layout.size(h)).toBeGreaterThanOrEqual(1);
        expect(layout.size(h)).toBeLessThanOrEqual(6);
        for (let k = 0; k < layout.size(h); k++) if (layout.householdOf(next + k) !== h) throw new Error(`slot ${next + k}`);
        next += layout.size(h);
      }
      expect(next).toBe(people);
    }
    const layout = new StateHouseholds(SEED, 0, 20_000);
    // About 2.06 adults a household.
    expect(20_000 / layout.count).toBeGreaterThan(1.95);
    expect(20_000 / layout.count).toBeLessThan(2.2);
  });
});
