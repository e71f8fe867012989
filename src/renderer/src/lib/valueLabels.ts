// How a field's value reads in tables (the cross-tab and its CSV): the codebook's meaning of a code
// (src/shared/codebook.ts), the bare code marked unknown when the book does not know it, and values
// of uncoded fields as the breakdown shows them.
import { CODEBOOK, codeLabel } from '../../../shared/codebook';
import type { FieldValue } from '../../../shared/contract';
import { valueLabel } from './filterKinds';

export function fieldValueLabel(field: string, value: FieldValue): string {
  if (!CODEBOOK[field.toUpperCase()]) return valueLabel(value);
  return codeLabel(field, value) ?? `${valueLabel(value)} (unknown code)`;
}
