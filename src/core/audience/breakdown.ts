// How the matching records spread over one field's values, shaped for a chart: AGE in the standard
// bands (each band is also a valid AGE filter value, so a clicked bar can become a filter), other
// integer fields by value, coded fields in the codebook's order, other strings most frequent first.
import { closestFieldName } from '../../shared/audienceRequest';
import type { ValueCount } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { countAgeBands } from '../../shared/ageBands';
import { CODEBOOK, compareCodes } from '../../shared/codebook';
import { FIELDS, fieldIndex } from '../../shared/fields';
import type { Audience, AudienceEngine } from './engine';

export const BREAKDOWN_MAX_DEFAULT = 50;

/** AGE's exact values grouped into the shared bands (src/shared/ageBands.ts). */
export function ageBands(exact: readonly ValueCount[]): ValueCount[] {
  return countAgeBands(exact).bands;
}

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

export async function breakdownValues(
  engine: AudienceEngine,
  audience: Audience,
  index: number,
  max = BREAKDOWN_MAX_DEFAULT,
): Promise<ValueCount[]> {
  const def = FIELDS[index]!;
  if (def.name === 'AGE') return ageBands(await engine.valueCounts(audience, index, Infinity)).slice(0, max);
  return orderValues(def.name, await engine.valueCounts(audience, index, max));
}

/**
 * The most frequent values, kept, in the order a chart reads them: AGE bands and integers from the
 * lowest, coded values (income bands from lowest to highest, src/shared/codebook.ts) in their natural
 * order, other strings most frequent first. Sorts in place and returns the list.
 */
export function orderValues(field: string, top: ValueCount[]): ValueCount[] {
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
