// An open dataset keeps the vectors it has read within a memory budget (keptVectors.ts): past it the
// least recently used fields are dropped and read again on their next use. On a real generated file
// (vector chunks of 1,024 positions, so a state's share is a few chunks), an engine whose budget
// holds only a handful of fields answers every count and page exactly as one that keeps them all,
// drops fields while it does, and never holds much more than its budget.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { KeptVectors } from '../../../src/core/dataset/read/keptVectors';
import { generateDataset } from '../../../src/core/generate';
import { EmbeddedEngine } from '../../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../../src/shared/audienceRequest';

type Filters = Array<[string, Array<string | number>]>;

/** A budget of ~6 one-byte fields of the whole file: most audiences below name more fields than that, together. */
const ROWS = 6000;
const BUDGET = 6 * ROWS;

let dir: string;
let bounded: EmbeddedEngine;
let unbounded: EmbeddedEngine;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-kept-vectors-'));
  const path = join(dir, 'd.sqlite');
  generateDataset({ rows: ROWS, seed: 21, out: path, vectorChunk: 1024 });
  const options = { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 0 };
  bounded = new EmbeddedEngine(Dataset.open(path, { vectorMemoryBytes: BUDGET }), options);
  unbounded = new EmbeddedEngine(Dataset.open(path, { vectorMemoryBytes: 2 ** 40 }), options);
}, 120_000);
afterAll(() => {
  bounded?.close();
  unbounded?.close();
  rmSync(dir, { recursive: true, force: true });
});

const AUDIENCES: Filters[] = [
  [['GENDER', ['F']]],
  [
    ['MARRIEDCD', ['M']],
    ['AGE', ['25-64']],
  ],
  [
    ['HOMEOWNERC', ['H']],
    ['DWELLTYPE', ['S']],
    ['CHILD', ['Y']],
  ],
  [
    ['ETHNICITYCD', ['B', 'H']],
    ['EDUCATIONCD', ['1', '2', '3']],
    ['GENDER', ['M']],
    ['MS_BOOKS', ['1-9']],
  ],
  [
    ['CREDITCARD', ['Y']],
    ['VACANT', ['N']],
    ['DPV', ['Y']],
    ['MS_TRAVEL', ['0']],
    ['MS_PETS', ['1-9']],
  ],
  [
    ['LANGUAGECD', ['EN']],
    ['VETERANCD', ['']],
    ['SOHOCD', ['Y']],
  ],
  [['LNAME', ['SMITH', 'JOHNSON', 'WILLIAMS']]],
];

function answers(engine: EmbeddedEngine, state: string, filters: Filters) {
  const audience = normalizeAudienceRequest({ state, filters });
  const count = engine.count(audience);
  return { count, first: engine.previewPage(audience, 0, 20), deep: engine.previewPage(audience, Math.max(0, count - 5), 20) };
}

describe('vectors kept within a memory budget', () => {
  it('answers as a dataset that keeps every vector, dropping and reading fields again as it goes', () => {
    let peak = 0;
    let nonEmpty = 0;
    // Twice round: the second pass reads again what the first dropped.
    for (let pass = 0; pass < 2; pass++)
      for (const state of ['CA', 'TX', 'NY', 'FL', 'WY'])
        for (const filters of AUDIENCES) {
          const expected = answers(unbounded, state, filters);
          expect(answers(bounded, state, filters), `${state} ${JSON.stringify(filters)}`).toEqual(expected);
          if (expected.count > 0) nonEmpty++;
          peak = Math.max(peak, bounded.dataset.vectorMemory().bytes);
        }
    expect(nonEmpty).toBeGreaterThan(30);
    const memory = bounded.dataset.vectorMemory();
    expect(memory.budget).toBe(BUDGET);
    expect(memory.dropped).toBeGreaterThan(20);
    // Within the budget but for the one field being read (a chunk of 1,024 positions, at most four bytes each, and its dictionary).
    expect(peak).toBeLessThanOrEqual(BUDGET + 4 * ROWS);
    expect(unbounded.dataset.vectorMemory().dropped).toBe(0);
    expect(unbounded.dataset.vectorMemory().bytes).toBeGreaterThan(3 * BUDGET);
  });
});

describe('KeptVectors', () => {
  it('drops the least recently used entries, never the one growing, and counts what it holds', () => {
    const kept = new KeptVectors<{ bytes: number }>(100);
    kept.add(1, { bytes: 40 });
    kept.add(2, { bytes: 40 });
    expect(kept.use(1)).toBeDefined(); // 2 is now the least recently used
    kept.add(3, { bytes: 40 });
    expect([kept.peek(1), kept.peek(2), kept.peek(3)].map(Boolean)).toEqual([true, false, true]);
    expect(kept.bytes).toBe(80);
    kept.grow(3, 200);
    // Alone and over the budget: the entry being read stays.
    expect([kept.peek(1), kept.peek(3)].map(Boolean)).toEqual([false, true]);
    expect(kept.bytes).toBe(240);
    expect(kept.dropped).toBe(2);
    expect(() => kept.grow(2, 1)).toThrow(/no kept vector/);
    expect(() => new KeptVectors(0)).toThrow(/not one/);
  });
});
