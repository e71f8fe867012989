// How good a lookalike model of a seed is, before the analyst uses it (docs/insight.md): every fifth of
// the seed's people in PID order is held out, the model learns from the other four fifths, everyone
// else of the state is ranked, and the lift of each decile of the ranking is how many of the held-out
// people it holds against a tenth of them. The traits that weigh most are said in words. Every count
// is an audience of includes, excludes and `like` (peopleSets.ts), so both engines answer the same.
import { codeLabel } from '../../shared/codebook';
import type { LikeQuality } from '../../shared/likeQuality';
import { dictionaryEntry } from '../../shared/dictionary';
import { FIELDS } from '../../shared/fields';
import type { AudienceEngine, Exclusion } from './contract/engine';
import { learnWeights, likeFields, LIKE_WEIGHT_SCALE, type Trait } from './likeModel';
import { outside, peopleAudience, peopleKey, setControls } from './peopleSets';

/** One in this many of the seed's people is held out. */
export const HOLD_OUT_EVERY = 5;
const TRAITS_SHOWN = 8;

/** A trait in words: "Estimated household income is $150,000–$174,999: 4.2 times as common in the seed as in the rest of the state". */
function traitWords(t: Trait): { field: string; label: string; value: string; times: number | null; words: string } {
  const name = FIELDS[t.field]!.name;
  const label = dictionaryEntry(name)?.label ?? name;
  const value = name === 'AGE' ? `${t.value}` : (codeLabel(name, t.value) ?? String(t.value));
  const times = t.restShare > 0 ? t.seedShare / t.restShare : Infinity;
  const shown = Number.isFinite(times) ? `${times.toFixed(1)} times as common` : 'found only';
  const words = Number.isFinite(times)
    ? `${label} is ${value}: ${shown} in the seed as in the rest of the state`
    : `${label} is ${value}: only in the seed`;
  return { field: name, label, value, times: Number.isFinite(times) ? Math.round(times * 10) / 10 : null, words };
}

/** `always`: people left out of every audience unasked (consumer opt-outs): never ranked, never counted. */
export async function likeQualityOf(
  engine: AudienceEngine,
  state: string,
  seed: Exclusion,
  always: readonly Exclusion[] = [],
): Promise<Omit<LikeQuality, 'ms'>> {
  const seedPeople = peopleAudience(state, seed);
  const heldOut: Exclusion = {
    kind: 'audience',
    key: `held-out:${peopleKey(seed)}`,
    audience: {
      state,
      filters: [],
      controls: { ...setControls([seed], []), sample: { every: HOLD_OUT_EVERY }, key: `held-out:${peopleKey(seed)}` },
    },
  };
  const training: Exclusion = {
    kind: 'audience',
    key: `training:${peopleKey(seed)}`,
    audience: { state, filters: [], controls: setControls([seed], [heldOut]) },
  };
  const seedCount = await engine.count(seedPeople);
  const heldOutCount = await engine.count(heldOut.audience);
  const model = await learnWeights(engine, training.audience, await likeFields(engine));
  // Everyone the lookalike could return: the state but the training people (and those always left out).
  const ranked = await engine.count({ state, filters: [], controls: setControls([], [...always, training]) });
  const deciles: LikeQuality['deciles'] = [];
  let before = 0;
  for (let d = 1; d <= 10; d++) {
    const top = Math.round((ranked * d) / 10);
    const topPeople: Exclusion = {
      kind: 'audience',
      key: `top:${top}:${training.key}`,
      audience: {
        state,
        filters: [],
        controls: {
          ...setControls([], [...always]),
          like: { seed: training, top, weights: model.weights },
          key: `top:${top}:${training.key}`,
        },
      },
    };
    const found = top === 0 ? 0 : await engine.count({ state, filters: [], controls: setControls([heldOut], [outside(state, topPeople)]) });
    const inDecile = found - before;
    before = found;
    deciles.push({ decile: d, heldOut: inDecile, lift: heldOutCount ? Math.round((inDecile / heldOutCount) * 10 * 100) / 100 : 0 });
  }
  const strongest = model.traits
    .filter((t) => t.weight > 0 && t.seedShare > 0)
    .sort((a, b) => b.weight * b.seedShare - a.weight * a.seedShare || a.field - b.field)
    .slice(0, TRAITS_SHOWN)
    .map((t) => ({ ...traitWords(t), weight: t.weight / LIKE_WEIGHT_SCALE }));
  return { state, seedCount, heldOut: heldOutCount, deciles, traits: strongest };
}
