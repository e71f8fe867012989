// The profile of an audience (docs/insight.md): per field, how many of its people hold each value
// against everyone in its state, drawn from the engine's group counts of many fields at once
// (groupCountsMany, so both engines answer the same), AGE in its bands, codes in the codebook's
// natural order, only values held in the state.
import { countAgeBands } from '../../shared/ageBands';
import { codeLabel, compareCodes } from '../../shared/codebook';
import type { FieldValue } from '../../shared/contract';
import { dictionaryEntry } from '../../shared/dictionary';
import { fieldIndex } from '../../shared/fields';
import { roundShare, type ProfileAnswer, type ProfileField, type ProfileValue } from '../../shared/profile';
import { valueCountsOf } from './contract/breakdown';
import type { Audience, AudienceEngine, GroupCount } from './contract/engine';
import { baseCounts } from './baseCounts';

/** Counts by key: AGE's band labels (every standard band, and 0-17 when held), else each value as text. */
function countsByKey(name: string, groups: readonly GroupCount[]): Map<string, number> {
  const values = valueCountsOf(groups);
  if (name === 'AGE') return new Map(countAgeBands(values).bands.map((b) => [b.value, b.count]));
  return new Map(values.map(({ value, count }) => [String(value), count]));
}

function valueOf(name: string, code: string, count: number, total: number, baseCount: number, baseTotal: number): ProfileValue {
  const known = name === 'AGE' ? code : codeLabel(name, code);
  const share = total > 0 ? count / total : 0;
  const baseShare = baseTotal > 0 ? baseCount / baseTotal : 0;
  return {
    code,
    label: known ?? code,
    ...(known === undefined ? { unknown: true as const } : {}),
    count,
    share: roundShare(share),
    baseCount,
    baseShare: roundShare(baseShare),
    index: baseShare === 0 ? null : Math.round((100 * share) / baseShare),
  };
}

/** One field of the profile from the audience's and the state's counts. */
function profileField(
  name: string,
  groups: readonly GroupCount[],
  base: readonly GroupCount[],
  total: number,
  baseTotal: number,
): ProfileField {
  const counts = countsByKey(name, groups);
  const baseCounts = countsByKey(name, base);
  // Every code anyone in the state holds (AGE: every standard band), in the natural order.
  const codes = Array.from(baseCounts.keys()).filter((code) => name === 'AGE' || baseCounts.get(code)! > 0);
  if (name !== 'AGE') codes.sort(compareCodes(name) as (a: FieldValue, b: FieldValue) => number);
  return {
    name,
    label: dictionaryEntry(name)?.label ?? name,
    values: codes.map((code) => valueOf(name, code, counts.get(code) ?? 0, total, baseCounts.get(code)!, baseTotal)),
  };
}

/**
 * The profile of an audience over its states' parts (one audience a state, list controls resolved):
 * counts add up over the states, and the base is everyone in those states.
 */
export async function profileOf(
  engine: AudienceEngine,
  parts: readonly Audience[],
  fields: readonly string[],
  empty: readonly boolean[] = [],
  /** Each part's base: everyone of its state (less whom every audience leaves out: consumer opt-outs). */
  bases: readonly Audience[] = parts.map((p) => ({ state: p.state, filters: [] })),
): Promise<ProfileAnswer> {
  let total = 0;
  let baseTotal = 0;
  const counted = parts.filter((_, k) => !empty[k]);
  for (const audience of counted) total += await engine.count(audience);
  for (const base of bases) baseTotal += await engine.count(base);
  const baseOf = await baseCounts(engine);
  const indexes = fields.map((name) => fieldIndex(name));
  // Each part's audience is found once for every field (groupCountsMany), and so is each base not kept yet.
  const groups: GroupCount[][][] = [];
  if (total > 0) for (const audience of counted) groups.push(await engine.groupCountsMany(audience, indexes));
  const base: GroupCount[][][] = [];
  for (const b of bases) base.push(await baseOf(b, indexes));
  const out = fields.map((name, f) =>
    profileField(
      name,
      groups.flatMap((part) => part[f]!),
      base.flatMap((part) => part[f]!),
      total,
      baseTotal,
    ),
  );
  return { total, base: { total: baseTotal }, fields: out };
}
