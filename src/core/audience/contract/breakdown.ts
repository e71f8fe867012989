// How an audience's people spread over one field's values, shaped for a chart, drawn from the
// engine's group counts (engine.ts, groupCounts): AGE in the standard bands (each band is also a
// valid AGE filter value, so a clicked bar can become a filter), other integer fields by value, coded
// fields in the codebook's order, other strings most frequent first. Also the rule both breakdowns
// and cross-tabs keep their values by: the most frequent, a tie in count going to the lower value.
import { closestFieldName } from '../../../shared/audienceRequest';
import type { FieldValue, ValueCount } from '../../../shared/contract';
import { AppError } from '../../../shared/errors';
import { countAgeBands } from '../../../shared/ageBands';
import { CODEBOOK, compareCodes } from '../../../shared/codebook';
import { FIELDS, fieldIndex } from '../../../shared/fields';
import type { GroupCount } from './engine';

/** The catalog index of a field that can be broken down, or a readable invalid_request. */
export function breakdownField(name: string, key = 'field'): number {
  const index = fieldIndex(name);
  if (index < 0) {
    const near = closestFieldName(name);
    throw new AppError(
      'invalid_request',
      `Unknown field ${JSON.stringify(name.slice(0, 40))}${near ? `; did you mean ${near}?` : '.'}`,
      key,
    );
  }
  if (FIELDS[index]!.type === 'number')
    throw new AppError('invalid_request', `${FIELDS[index]!.name} is a coordinate and has no values to break down.`, key);
  return index;
}

/** Two values of one field (or two keys of one axis) from the lower: numbers by value, strings by code unit. */
export function byValue(a: FieldValue, b: FieldValue): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders by count, the largest first; a tie in count goes to the lower value (the same on every engine). */
export function mostFrequentFirst(a: { value: FieldValue; count: number }, b: { value: FieldValue; count: number }): number {
  return b.count - a.count || byValue(a.value, b.value);
}

/** The counts of a field's values from group counts of that field alone, added up by value (several states' may repeat one). */
export function valueCountsOf(groups: Iterable<GroupCount>): ValueCount[] {
  const counts = new Map<FieldValue, number>();
  for (const { values, count } of groups) counts.set(values[0]!, (counts.get(values[0]!) ?? 0) + count);
  return Array.from(counts, ([value, count]) => ({ value, count }));
}

/** The `max` most frequent values, most frequent first (mostFrequentFirst). Sorts in place. */
export function mostFrequent(values: ValueCount[], max: number): ValueCount[] {
  return values.sort(mostFrequentFirst).slice(0, max);
}

/**
 * A field's breakdown from its group counts: AGE's exact values in the shared bands
 * (src/shared/ageBands.ts), else the `max` most frequent values in the field's order.
 */
export function breakdownOf(index: number, groups: Iterable<GroupCount>, max: number): ValueCount[] {
  const def = FIELDS[index]!;
  const values = valueCountsOf(groups);
  if (def.name === 'AGE') return countAgeBands(values).bands.slice(0, max);
  return orderValues(def.name, mostFrequent(values, max));
}

/**
 * The most frequent values, kept, in the order a chart reads them: AGE bands and integers from the
 * lowest, coded values (income bands from lowest to highest, src/shared/codebook.ts) in their natural
 * order, other strings most frequent first. Sorts in place and returns the list.
 */
function orderValues(field: string, top: ValueCount[]): ValueCount[] {
  const def = FIELDS[fieldIndex(field)];
  if (!def) return top;
  if (def.name === 'AGE') top.sort((a, b) => parseInt(String(a.value), 10) - parseInt(String(b.value), 10));
  else if (def.type === 'integer') top.sort((a, b) => Number(a.value) - Number(b.value));
  else if (CODEBOOK[def.name]) {
    const compare = compareCodes(def.name);
    top.sort((a, b) => compare(a.value, b.value));
  }
  return top;
}
