// Overlap of sets of people in one state (docs/insight.md): the people in exactly each combination of
// the sets, each counted by the engine as an audience of includes and excludes (peopleSets.ts), so
// every engine answers the same; pairs and totals are sums of those regions.
import { combinations, type OverlapAnswer } from '../../shared/overlap';
import type { AudienceEngine, Exclusion } from './contract/engine';
import { regionAudience } from './peopleSets';

/** `always`: people no region holds whatever the sets (consumer opt-outs the resolver leaves out of every audience). */
export async function overlapOf(
  engine: AudienceEngine,
  state: string,
  sets: readonly Exclusion[],
  refs: readonly string[],
  always: readonly Exclusion[] = [],
): Promise<OverlapAnswer> {
  const n = sets.length;
  const regions: OverlapAnswer['regions'] = [];
  for (const inside of combinations(n)) {
    const others = [...sets.filter((_, k) => !inside.includes(k)), ...always];
    const count = await engine.count(
      regionAudience(
        state,
        inside.map((k) => sets[k]!),
        others,
      ),
    );
    regions.push({ in: inside, count });
  }
  const pairs = Array.from({ length: n }, (_, a) =>
    Array.from({ length: n }, (_, b) => regions.filter((r) => r.in.includes(a) && r.in.includes(b)).reduce((sum, r) => sum + r.count, 0)),
  );
  return { state, sets: refs.map((ref, k) => ({ ref, total: pairs[k]![k]! })), pairs, regions };
}
