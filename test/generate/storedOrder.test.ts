// The generator's storage order (generateStored): the very records of generateRecords, each with
// its PID's rank in its state, laid out state by state with a state's households by ZIP and a
// household's members together. And the piece that finds a rank: the keyed permutation walked backwards.
import { describe, expect, it } from 'vitest';
import { generateRecords, generateStored } from '../../src/core/generate';
import { KeyedPermutation } from '../../src/core/generate/permutation';
import { fieldIndex } from '../../src/shared/fields';

const [STATE, ZIP, HHID] = ['STATE', 'ZIP', 'HHID'].map(fieldIndex) as [number, number, number];

describe('the keyed permutation backwards', () => {
  it('undoes it for sizes on and off its bit widths', () => {
    for (const n of [1, 2, 3, 5, 16, 17, 1000, 4097, 65_535]) {
      const p = new KeyedPermutation(n, [n, 7, 99, 0xdeadbeef, 5, 0x12345678]);
      const seen = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const y = p.at(i);
        seen[y] = 1;
        expect(p.inverse(y)).toBe(i);
      }
      expect(seen.every((v) => v === 1)).toBe(true);
    }
  });
});

describe('records in storage order', () => {
  const ROWS = 12_000;
  const SEED = 5;
  const stored = [...generateStored(ROWS, SEED)];

  it('are the records of PID order, each at its rank', () => {
    const inPidOrder = [...generateRecords(ROWS, SEED)];
    const byState = new Map<string, string[]>();
    for (const { record, rank } of stored) {
      const state = byState.get(record[STATE] as string) ?? [];
      expect(state[rank]).toBeUndefined();
      state[rank] = JSON.stringify(record);
      byState.set(record[STATE] as string, state);
    }
    expect([...byState.values()].flat()).toEqual(inPidOrder.map((r) => JSON.stringify(r)));
  });

  it('come state by state, by ZIP, each household together', () => {
    const finished = new Set<string>();
    for (let k = 1; k < stored.length; k++) {
      const [a, b] = [stored[k - 1]!.record, stored[k]!.record];
      if (a[STATE] !== b[STATE]) {
        expect(a[STATE]! < b[STATE]!).toBe(true);
        continue;
      }
      expect(a[ZIP]! <= b[ZIP]!).toBe(true);
      // A household, once left, never comes back.
      if (a[HHID] !== b[HHID]) {
        finished.add(a[HHID] as string);
        expect(finished.has(b[HHID] as string)).toBe(false);
      }
    }
    // Households of more than one: the order groups something.
    expect(finished.size).toBeLessThan(stored.length * 0.8);
  });
});
