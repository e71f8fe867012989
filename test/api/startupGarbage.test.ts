// A serving process collects its start-up's garbage once before it listens (heapTuning.ts): what the
// start-up keeps leaves V8's young generation, so no scavenge copies it during the first requests,
// and no global `gc` appears.
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectStartupGarbage } from '../../src/server/heapTuning';

const youngBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;

describe('the collection at the end of start-up', () => {
  it('moves what the start-up keeps out of the young generation, twice alike, with no global gc', () => {
    for (let round = 0; round < 2; round++) {
      const kept = Array.from({ length: 100_000 }, (_, k) => ({ k, text: `row ${k}` }));
      expect(youngBytes()).toBeGreaterThan(1_000_000);
      collectStartupGarbage();
      expect(youngBytes()).toBeLessThan(100_000);
      expect(kept).toHaveLength(100_000);
    }
    expect('gc' in globalThis).toBe(false);
  });
});
