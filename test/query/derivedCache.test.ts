// The per-state arrays list controls read from the file (coordinates for `near`, household numbers,
// exclusion marks) are kept in an LRU with a byte budget (embeddedEngine.ts). With a budget smaller
// than one state's coordinates, so that they are read again for every query and household numbers
// push each other out, the engine answers exactly as one that keeps them all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { generateDataset } from '../../src/core/generate';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { engineAudience } from '../support/audienceQueries';

let dir: string;
let bounded: EmbeddedEngine;
let unbounded: EmbeddedEngine;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-derived-'));
  const path = join(dir, 'd.sqlite');
  generateDataset({ rows: 6000, seed: 4, out: path });
  const options = { backgroundVerify: false, selectionCacheBytes: 0, scanSplitFrom: 0 };
  // California's ~700 people: 11 KB of coordinates, 2.8 KB of household numbers.
  bounded = new EmbeddedEngine(Dataset.open(path), { ...options, derivedCacheBytes: 4096 });
  unbounded = new EmbeddedEngine(Dataset.open(path), { ...options, derivedCacheBytes: 2 ** 40 });
}, 120_000);
afterAll(() => {
  bounded?.close();
  unbounded?.close();
  rmSync(dir, { recursive: true, force: true });
});

const PLACES: Array<[string, number, number]> = [
  ['CA', 34.05, -118.25],
  ['TX', 29.76, -95.37],
  ['NY', 40.71, -74.0],
  ['FL', 25.76, -80.19],
];

async function answers(engine: EmbeddedEngine, request: Record<string, unknown>) {
  const audience = await engineAudience(engine, request);
  const count = engine.count(audience);
  return { count, first: engine.previewPage(audience, 0, 20), last: engine.previewPage(audience, Math.max(0, count - 5), 20) };
}

describe('per-state arrays kept within a budget', () => {
  it('answer near and households exactly as when every one is kept', async () => {
    let people = 0;
    for (let pass = 0; pass < 2; pass++)
      for (const [state, lat, lon] of PLACES)
        for (const request of [
          { state, filters: [], near: { lat, lon, miles: 60 } },
          { state, filters: [['GENDER', ['F']]], households: 'one' },
          { state, filters: [], near: { lat, lon, miles: 200 }, households: 'one' },
        ]) {
          const expected = await answers(unbounded, request);
          expect(await answers(bounded, request), JSON.stringify(request)).toEqual(expected);
          // The controls took people out: without them the audience is larger.
          const { filters } = request;
          expect(expected.count, JSON.stringify(request)).toBeLessThan(
            unbounded.count(await engineAudience(unbounded, { state, filters })),
          );
          people += expected.count;
        }
    expect(people).toBeGreaterThan(2000);
  });
});
