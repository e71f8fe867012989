// `like` (docs/insight.md): a naive-Bayes model of what sets a seed's people apart from the rest of
// their state, learned from counts every engine gives alike (groupCountsMany), with whole-number weights
// so that a person's score, the sum of their values' weights, is the same integer on every engine.
// Per field (every coded field the engine does not hash, and AGE in its bands) and value v:
//   weight(v) = round(SCALE * ln( (seed(v) + 1) / (S + K) ÷ (rest(v) + 1) / (R + K) ))
// where seed(v) and rest(v) count the seed's people and the state's other people holding v, S and R
// are their totals and K the number of values held in the state (add-one smoothing).
import { ageBandOf } from '../../shared/ageBands';
import { CODEBOOK } from '../../shared/codebook';
import type { FieldValue } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { FIELDS, fieldIndex } from '../../shared/fields';
import { LIKE_SEED_MIN, type ExcludeRef, type Like } from '../../shared/listControls';
import { baseCounts, datasetName } from './baseCounts';
import type { Audience, AudienceEngine, Exclusion, GroupCount, ResolvedLike } from './contract/engine';
import { peopleAudience, peopleKey } from './peopleSets';

/** Weights are natural-log odds times this, rounded: a thousandth of a log-odds unit is finer than any count can tell. */
export const LIKE_WEIGHT_SCALE = 1000;

export type LikeEngine = Pick<AudienceEngine, 'count' | 'groupCountsMany' | 'isHashed' | 'summary'>;

const AGE = fieldIndex('AGE');

/** The fields a model weighs, in catalog order: the coded fields the engine does not hash, and AGE. */
export async function likeFields(engine: LikeEngine): Promise<number[]> {
  const fields: number[] = [];
  for (const [index, def] of FIELDS.entries()) {
    if (def.name === 'STATE' || def.name === 'STATECD') continue; // one value in a state: no information
    if (index !== AGE && !CODEBOOK[def.name]) continue;
    if (!(await engine.isHashed(index))) fields.push(index);
  }
  return fields;
}

/** A value's key for the model: AGE's band label (null outside every band), else the value itself. */
function keyOf(field: number, value: FieldValue): FieldValue | null {
  if (field !== AGE) return value;
  return value === '' ? null : (ageBandOf(Number(value))?.label ?? null);
}

function tally(field: number, groups: readonly GroupCount[]): Map<FieldValue, number> {
  const counts = new Map<FieldValue, number>();
  for (const { values, count } of groups) {
    const key = keyOf(field, values[0]!);
    if (key !== null) counts.set(key, (counts.get(key) ?? 0) + count);
  }
  return counts;
}

/** One value the model weighs (AGE: a band), with the shares it learned from: what the app puts in words. */
export interface Trait {
  field: number;
  value: FieldValue;
  weight: number;
  seedShare: number;
  restShare: number;
}

export interface LearnedWeights {
  seedCount: number;
  weights: ResolvedLike['weights'];
  traits: Trait[];
}

/** The weights of a seed (an audience of one state) against everyone else of its state. */
export async function learnWeights(engine: LikeEngine, seed: Audience, fields: readonly number[]): Promise<LearnedWeights> {
  const baseOf = await baseCounts(engine);
  const seedCount = await engine.count(seed);
  const restCount = (await engine.count({ state: seed.state, filters: [] })) - seedCount;
  const weights: ResolvedLike['weights'] = [];
  const traits: Trait[] = [];
  // The seed is found once for every field, and so is the state for the fields not kept yet.
  const seedGroups = await engine.groupCountsMany(seed, fields);
  const stateGroups = await baseOf(seed.state, fields);
  for (const [f, field] of fields.entries()) {
    const baseGroups = stateGroups[f]!;
    const seedCounts = tally(field, seedGroups[f]!);
    const baseCounts = tally(field, baseGroups);
    const k = baseCounts.size;
    const weightOf = new Map<FieldValue, number>();
    for (const [key, inBase] of baseCounts) {
      const inSeed = seedCounts.get(key) ?? 0;
      const odds = (inSeed + 1) / (seedCount + k) / ((inBase - inSeed + 1) / (restCount + k));
      const weight = Math.round(LIKE_WEIGHT_SCALE * Math.log(odds));
      weightOf.set(key, weight);
      const seedShare = seedCount ? inSeed / seedCount : 0;
      traits.push({ field, value: key, weight, seedShare, restShare: restCount ? (inBase - inSeed) / restCount : 0 });
    }
    // AGE is weighed by band; each exact age held in the state takes its band's weight.
    const byValue = new Map<FieldValue, number>();
    for (const { values } of baseGroups) {
      const key = keyOf(field, values[0]!);
      const w = key === null ? 0 : weightOf.get(key)!;
      if (w !== 0) byValue.set(values[0]!, w);
    }
    weights.push({ field, byValue });
  }
  return { seedCount, weights, traits };
}

/** Learned weights, by engine and seed: a later page of the same lookalikes does not learn again. */
const learned = new WeakMap<LikeEngine, Map<string, LearnedWeights>>();
const LEARNED_KEPT = 16;

/** `like` resolved: the seed found, the model learned (or remembered), a seed too small refused naming `like`. */
export async function resolveLike(
  like: Like,
  state: string,
  engine: LikeEngine | undefined,
  resolveSeed: (ref: ExcludeRef) => Promise<Exclusion>,
): Promise<ResolvedLike> {
  if (!engine) throw new Error('A lookalike needs the engine to learn from.');
  const seed = await resolveSeed(like.seed);
  let kept = learned.get(engine);
  if (!kept) learned.set(engine, (kept = new Map()));
  const key = `${await datasetName(engine)}|${state}|${peopleKey(seed)}`;
  let model = kept.get(key);
  if (!model) {
    model = await learnWeights(engine, peopleAudience(state, seed), await likeFields(engine));
    if (kept.size >= LEARNED_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(key, model);
  }
  if (model.seedCount < LIKE_SEED_MIN)
    throw new AppError(
      'invalid_request',
      `"like" seed ${like.seed.kind}:${like.seed.id} holds ${model.seedCount} people in ${state}; a lookalike needs at least ${LIKE_SEED_MIN}.`,
      'like',
    );
  return { seed, top: like.top, weights: model.weights };
}
