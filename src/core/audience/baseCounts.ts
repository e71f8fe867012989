// The counts of everyone in a state by each field: the base a profile compares an audience with and a
// lookalike model learns against. The same for every audience of the state, so they are kept, per
// engine and per dataset (its source, creation time and size name it: a new load or import is
// another), and a profile of a hundred fields counts only its audience's people.
import { audienceKey } from '../../shared/audienceRequest';
import { hasEffect } from './contract/controls';
import type { Audience, AudienceEngine, GroupCount } from './contract/engine';

type BaseEngine = Pick<AudienceEngine, 'summary' | 'groupCountsMany'>;

const KEPT_FIELDS = 2048;
const kept = new WeakMap<BaseEngine, { dataset: string; counts: Map<string, GroupCount[]> }>();

/** A name for the dataset the engine answers from now. */
export async function datasetName(engine: Pick<AudienceEngine, 'summary'>): Promise<string> {
  const s = await engine.summary();
  return `${s.source}|${s.createdAt}|${s.records}`;
}

/**
 * Everyone of a state by each of some fields (catalog indexes; one list a field, in their order): the
 * state alone, or a base audience (the state less whom every audience leaves out).
 */
export type BaseCounts = (base: string | Audience, fields: readonly number[]) => Promise<GroupCount[][]>;

/**
 * Everyone of a state counted by fields, kept for later asks; the fields not kept yet are counted
 * together, in one ask of the engine. The dataset is named once, here.
 */
export async function baseCounts(engine: BaseEngine): Promise<BaseCounts> {
  const dataset = await datasetName(engine);
  let entry = kept.get(engine);
  if (!entry || entry.dataset !== dataset) kept.set(engine, (entry = { dataset, counts: new Map() }));
  const counts = entry.counts;
  return async (base, fields) => {
    const audience: Audience = typeof base === 'string' ? { state: base, filters: [] } : base;
    // Controls with no effect (no consumer opt-outs to leave out) are the plain state: one entry for both.
    const prefix = `${audienceKey(audience)}#${hasEffect(audience.controls) ? audience.controls.key : ''}|`;
    const found = fields.map((field) => counts.get(prefix + field));
    const missing = fields.filter((_, k) => !found[k]);
    if (missing.length > 0) {
      const counted = await engine.groupCountsMany(audience, missing);
      const byField = new Map(missing.map((field, k) => [field, counted[k]!]));
      fields.forEach((field, k) => (found[k] ??= byField.get(field)));
      missing.forEach((field, k) => {
        if (counts.size >= KEPT_FIELDS) counts.delete(counts.keys().next().value!);
        counts.set(prefix + field, counted[k]!);
      });
    }
    return found as GroupCount[][];
  };
}
