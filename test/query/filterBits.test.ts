// Filters' bits (filterBits.ts) change no answer: on a real generated file, an engine that keeps the
// bits of every filter asked twice counts and pages exactly as one that never does, on the first,
// second (bits built) and later asks, on one core and on two (the worker marks a page's pieces from
// bits and vectors mixed), for filters alone and beside ones that have no bits yet. The bits are
// seen to be built only from a second ask, kept within their budget, and not for small states.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine, type EngineOptions } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';

type Filters = Array<[string, Array<string | number>]>;

let dir: string;
let path: string;
let plain: EmbeddedEngine;

/** An engine of the file; every engine here keeps no selections, so each page is marked anew. */
function engine(options: EngineOptions): EmbeddedEngine {
  return new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false, selectionCacheBytes: 0, pidOrderWarmup: false, ...options });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-filter-bits-'));
  path = join(dir, 'd.sqlite');
  generateDataset({ rows: 8000, seed: 21, out: path });
  plain = engine({ filterBits: false, scanSplitFrom: 0 });
}, 120_000);
afterAll(() => {
  plain.close();
  rmSync(dir, { recursive: true, force: true });
});

const AUDIENCES: Filters[] = [
  [['GENDER', ['F']]],
  [
    ['GENDER', ['M']],
    ['MARRIEDCD', ['M']],
  ],
  [
    ['MARRIEDCD', ['M']],
    ['GENDER', ['F']],
  ],
  [
    ['GENDER', ['F']],
    ['MARRIEDCD', ['S']],
    ['AGE', ['20-24', '25-29', '45-49']],
  ],
  [['AGE', ['18-40', '70+']]],
  [
    ['HOMEOWNERC', ['H']],
    ['GENDER', ['F', 'U']],
    ['AGE', ['25-64']],
  ],
];

function answers(e: EmbeddedEngine, state: string, filters: Filters) {
  const audience = normalizeAudienceRequest({ state, filters });
  const count = e.count(audience);
  const deep = Math.max(0, count - 7);
  return { count, first: e.previewPage(audience, 0, 25), deep: e.previewPage(audience, deep, 25) };
}

describe('filter bits', () => {
  it('count and page as without them, on one core and on two, before and after they are built', async () => {
    for (const scanSplitFrom of [0, 1]) {
      const withBits = engine({ filterBits: { fromPeople: 1 }, scanSplitFrom });
      try {
        if (scanSplitFrom) {
          expect(await withBits.twoCores!.whenRunning()).toBe(true);
          withBits.twoCores!.workerFirst = true;
        }
        let nonEmpty = 0;
        // A count asks each of its filters once: only those two audiences share (GENDER F, MARRIEDCD M) have bits after it.
        for (const state of ['CA', 'TX', 'NY'])
          for (const filters of AUDIENCES) {
            const audience = normalizeAudienceRequest({ state, filters });
            expect(withBits.count(audience)).toBe(plain.count(audience));
          }
        expect(withBits.filterBits!.built).toBe(3 * 2);
        // Then a count and two pages: the count builds the bits, the pages and the next round use them.
        for (let round = 0; round < 2; round++)
          for (const state of ['CA', 'TX', 'NY'])
            for (const filters of AUDIENCES) {
              const expected = answers(plain, state, filters);
              expect(answers(withBits, state, filters), `round ${round} ${state} ${JSON.stringify(filters)}`).toEqual(expected);
              if (expected.count > 0) nonEmpty++;
            }
        expect(nonEmpty).toBeGreaterThan(30);
        // Every distinct filter of each state: GENDER F, GENDER M, MARRIEDCD M and S, the three AGE
        // filters, HOMEOWNERC H and GENDER F+U.
        expect(withBits.filterBits!.built).toBe(3 * 9);
        // A filter with bits beside one asked for the first time: the worker marks from both.
        for (const state of ['CA', 'TX']) {
          const filters: Filters = [
            ['GENDER', ['F']],
            ['AGE', ['30-34']],
          ];
          expect(answers(withBits, state, filters)).toEqual(answers(plain, state, filters));
        }
        if (scanSplitFrom) expect(withBits.twoCores!.jobsDone).toBeGreaterThan(20);
      } finally {
        withBits.close();
      }
    }
  });

  it('are kept within their budget, and not built for states under the size they start from', () => {
    // Budget of one state's bits at most: each new one pushes out the last, and answers stay right.
    const tight = engine({ filterBits: { fromPeople: 1, budgetBytes: 200 }, scanSplitFrom: 0 });
    const big = engine({ filterBits: { fromPeople: 100_000 }, scanSplitFrom: 0 });
    try {
      for (let round = 0; round < 3; round++)
        for (const filters of AUDIENCES.slice(0, 3)) {
          expect(answers(tight, 'CA', filters)).toEqual(answers(plain, 'CA', filters));
          expect(answers(big, 'CA', filters)).toEqual(answers(plain, 'CA', filters));
        }
      expect(big.filterBits!.built).toBe(0);
      // GENDER M and MARRIEDCD M push each other out: built on the second round and again on the third.
      expect(tight.filterBits!.built).toBeGreaterThan(3);
    } finally {
      tight.close();
      big.close();
    }
  });
});
