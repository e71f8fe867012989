// The counts of everyone in a state by one field: the base a profile compares an audience with and a
// lookalike model learns against. The same for every audience of the state, so they are kept, per
// engine and per dataset (its source, creation time and size name it: a new load or import is
// another), and a profile of a hundred fields counts only its audience's people.
import { audienceKey } from '../../shared/audienceRequest';
import type { Audience, AudienceEngine, GroupCount } from './contract/engine';

type BaseEngine = Pick<AudienceEngine, 'summary' | 'groupCounts'>;

const KEPT_FIELDS = 2048;
const kept = new WeakMap<BaseEngine, { dataset: string; counts: Map<string, GroupCount[]> }>();

/** A name for the dataset the engine answers from now. */
export async function datasetName(engine: Pick<AudienceEngine, 'summary'>): Promise<string> {
  const s = await engine.summary();
  return `${s.source}|${s.createdAt}|${s.records}`;
}

/** Everyone of a state by a field: the state alone, or a base audience (the state less whom every audience leaves out). */
export type BaseCounts = (base: string | Audience, field: number) => Promise<GroupCount[]>;

/** Everyone of a state counted by a field (catalog index), kept for later asks; the dataset is named once, here. */
export async function baseCounts(engine: BaseEngine): Promise<BaseCounts> {
  const dataset = await datasetName(engine);
  let entry = kept.get(engine);
  if (!entry || entry.dataset !== dataset) kept.set(engine, (entry = { dataset, counts: new Map() }));
  const counts = entry.counts;
  return async (base, field) => {
    const audience: Audience = typeof base === 'string' ? { state: base, filters: [] } : base;
    const key = `${audienceKey(audience)}#${audience.controls?.key ?? ''}|${field}`;
    let found = counts.get(key);
    if (!found) {
      found = await engine.groupCounts(audience, [field]);
      if (counts.size >= KEPT_FIELDS) counts.delete(counts.keys().next().value!);
      counts.set(key, found);
    }
    return found;
  };
}
