// The marking loops (markKernels.ts) against the plainest reading of a filter: every position tested
// one at a time. Pieces start at every byte of a state's marks and end anywhere, vectors start at odd
// byte offsets of their buffers, and each vector type takes its own loop; what is marked is read back
// bit by bit and as positions, and the bits outside a piece are left as they were.
import { describe, expect, it } from 'vitest';
import { randomFrom as random } from '../../src/core/audience/contract/listSteps';
import { markedPositions, markRange } from '../../src/core/query/markKernels';
import { markPieceBounds, PIECES } from '../../src/core/query/scanJob';
import type { ScanPredicate } from '../../src/core/query/scanKernels';
import { LENGTH, maskOf, plainly, vector } from '../support/scanVectors';

/** Masks over one- and two-byte vectors, integer bands and hashes: every kind the engine marks. */
function predicates(seed: number): ScanPredicate[] {
  const next = random(seed);
  const offset = 1 + Math.floor(next() * 3);
  return [
    { data: vector('u8', 2, offset, next), mask: maskOf(2, 0.5, next) },
    { data: vector('u8', 9, offset + 1, next), mask: maskOf(9, 0.4, next) },
    { data: vector('u16', 3000, offset, next), mask: maskOf(3000, 0.3, next) },
    { data: vector('u32', 100_000, 0, next), bands: [{ lo: 10_000, hi: 60_000 }] },
    { data: vector('u32', 30, 0, next), hashes: new Set([2, 5, 11, 17]) },
  ];
}

function combinations(ps: ScanPredicate[]): ScanPredicate[][] {
  const out: ScanPredicate[][] = ps.map((p) => [p]);
  for (let a = 0; a < ps.length; a++)
    for (let b = 0; b < ps.length; b++) if (b !== a) out.push([ps[a]!, ps[b]!], [ps[b]!, ps[a]!, ps[(a + b + 1) % ps.length]!]);
  return out;
}

/** The positions of [from, to) whose bits are set, counted from `base`. */
function setBits(marks: Uint8Array, base: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) if (marks[(i - base) >>> 3]! & (1 << ((i - base) & 7))) out.push(i);
  return out;
}

describe('mark kernels', () => {
  it('mark exactly the positions that pass every predicate, for every kind, piece start and end', () => {
    let compared = 0;
    for (const seed of [1, 2, 3]) {
      const ps = predicates(seed);
      for (const combo of combinations(ps))
        for (const base of [0, 3])
          for (const first of [base, base + 8, base + 24])
            for (const end of [first, first + 1, first + 7, first + 8, first + 13, 300 + base, LENGTH]) {
              if (end < first) continue;
              // Bits outside the piece hold ones, to see that a piece writes only its own bytes.
              const marks = new Uint8Array(Math.ceil((LENGTH - base) / 8)).fill(0xff);
              const n = markRange(combo, first, end, marks, base);
              const expected = plainly(combo, first, end);
              expect(n, `seed ${seed}, base ${base}, [${first}, ${end})`).toBe(expected.length);
              expect(setBits(marks, base, first, end)).toEqual(expected);
              for (let o = 0; o < (first - base) >>> 3; o++) expect(marks[o]).toBe(0xff);
              for (let o = Math.ceil((end - base) / 8); o < marks.length; o++) expect(marks[o]).toBe(0xff);
              compared++;
            }
    }
    expect(compared).toBeGreaterThan(1_000);
  });

  it('marks a filter of one value four bytes a read, first or after another, wherever the vector starts in a word and however its buffer ends', () => {
    const next = random(6);
    // A filter before it, so the one-value loop also clears bits another set (a later filter's pass).
    const before: ScanPredicate = { data: vector('u16', 3000, 1, next), mask: maskOf(3000, 0.6, next) };
    // Values that differ from the code only in the high bit or the low one, so a flag that leaked
    // between bytes of a word would show.
    const values = [0x05, 0x85, 0x04, 0x00, 0xff, 0x80];
    let compared = 0;
    for (const offset of [0, 1, 2, 3])
      for (const slack of [0, 1, 5]) {
        // A buffer that ends `slack` bytes after the vector: with none, the last word read must stop short of it.
        const data = new Uint8Array(new ArrayBuffer(offset + LENGTH + slack), offset, LENGTH);
        for (let i = 0; i < LENGTH; i++) data[i] = values[Math.floor(next() * values.length)]!;
        for (const code of [0x05, 0x85, 0xff, 0x00]) {
          const mask = new Uint8Array(256);
          mask[code] = 1;
          for (const p of [[{ data, mask }], [before, { data, mask }]] as ScanPredicate[][])
            for (const base of [0, 1, 2, 3])
              for (const first of [base, base + 8, base + 64])
                for (const end of [first, first + 5, first + 8, first + 67, LENGTH - 3, LENGTH]) {
                  if (end < first) continue;
                  const marks = new Uint8Array(Math.ceil((LENGTH - base) / 8)).fill(0xff);
                  const n = markRange(p, first, end, marks, base);
                  const expected = plainly(p, first, end);
                  const at = `offset ${offset}, slack ${slack}, code ${code}, [${first}, ${end})`;
                  expect(n, at).toBe(expected.length);
                  expect(setBits(marks, base, first, end), at).toEqual(expected);
                  for (let o = 0; o < (first - base) >>> 3; o++) expect(marks[o]).toBe(0xff);
                  for (let o = Math.ceil((end - base) / 8); o < marks.length; o++) expect(marks[o]).toBe(0xff);
                  compared++;
                }
        }
      }
    expect(compared).toBeGreaterThan(4_000);
  });

  it('lists the marked positions in ascending order', () => {
    const ps = predicates(4).slice(0, 2);
    const marks = new Uint8Array(Math.ceil((LENGTH - 5) / 8));
    const n = markRange(ps, 5, LENGTH, marks, 5);
    expect([...markedPositions(marks, n, 5)]).toEqual(plainly(ps, 5, LENGTH));
    expect(markedPositions(new Uint8Array(4), 0, 0)).toHaveLength(0);
  });

  it('runs `between` after each pass and refuses a piece that does not start a byte', () => {
    const ps = predicates(5).slice(0, 3);
    let passes = 0;
    markRange(ps, 0, LENGTH, new Uint8Array(LENGTH / 8 + 1), 0, () => passes++);
    expect(passes).toBe(3);
    expect(() => markRange(ps, 4, LENGTH, new Uint8Array(LENGTH / 8 + 1), 0)).toThrow(/does not start a byte/);
  });

  it('cuts a state into pieces that each start a byte of its marks', () => {
    for (const [first, end] of [
      [0, 1000],
      [13, 200_013],
      [5, 9],
      [1_000_003, 2_187_019],
    ] as const) {
      const bounds = markPieceBounds(first, end);
      expect(bounds).toHaveLength(PIECES + 1);
      expect(bounds[0]).toBe(first);
      expect(bounds[PIECES]).toBe(end);
      for (let k = 0; k < PIECES; k++) {
        expect((bounds[k]! - first) % 8).toBe(0);
        expect(bounds[k + 1]!).toBeGreaterThanOrEqual(bounds[k]!);
      }
    }
  });
});
