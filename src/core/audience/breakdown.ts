// How the matching records spread over one field's values, shaped for a chart: AGE in the standard
// bands (each band is also a valid AGE filter value, so a clicked bar can become a filter), other
// integer fields by value, string fields most frequent first.
import { closestFieldName } from '../../shared/audienceRequest';
import type { ValueCount } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { FIELDS, fieldIndex } from '../../shared/fields';
import type { Audience, AudienceEngine } from '../query/audienceEngine';

export const BREAKDOWN_MAX_DEFAULT = 50;

/** Inclusive bands; the last is open-ended. Ages under 18 (should a dataset hold any) get their own band. */
export const AGE_BANDS: ReadonlyArray<{ label: string; lo: number; hi: number }> = [
  { label: '0-17', lo: 0, hi: 17 },
  { label: '18-24', lo: 18, hi: 24 },
  { label: '25-34', lo: 25, hi: 34 },
  { label: '35-44', lo: 35, hi: 44 },
  { label: '45-54', lo: 45, hi: 54 },
  { label: '55-64', lo: 55, hi: 64 },
  { label: '65+', lo: 65, hi: Infinity },
];

export function ageBands(exact: readonly ValueCount[]): ValueCount[] {
  const counts = AGE_BANDS.map(() => 0);
  for (const { value, count } of exact) {
    const band = AGE_BANDS.findIndex((b) => Number(value) >= b.lo && Number(value) <= b.hi);
    if (band >= 0) counts[band]! += count;
  }
  // The standard bands always appear (an empty bar says something); the under-18 band only when used.
  return AGE_BANDS.map((b, i) => ({ value: b.label, count: counts[i]! })).filter((v, i) => i > 0 || v.count > 0);
}

/** The catalog index of a field that can be broken down, or a readable invalid_request. */
export function breakdownField(name: string): number {
  const index = fieldIndex(name);
  if (index < 0) {
    const near = closestFieldName(name);
    throw new AppError(
      'invalid_request',
      `Unknown field ${JSON.stringify(name.slice(0, 40))}${near ? `; did you mean ${near}?` : '.'}`,
      'field',
    );
  }
  if (FIELDS[index]!.type === 'number')
    throw new AppError('invalid_request', `${FIELDS[index]!.name} is a coordinate and has no values to break down.`, 'field');
  return index;
}

export function breakdown(engine: AudienceEngine, audience: Audience, index: number, max = BREAKDOWN_MAX_DEFAULT): ValueCount[] {
  const def = FIELDS[index]!;
  if (def.name === 'AGE') return ageBands(engine.valueCounts(audience, index, Infinity)).slice(0, max);
  const top = engine.valueCounts(audience, index, max);
  // The most frequent values are kept; integer values then read left to right in order.
  if (def.type === 'integer') top.sort((a, b) => Number(a.value) - Number(b.value));
  return top;
}
