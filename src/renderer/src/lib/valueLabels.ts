// How a field's value reads in tables (the cross-tab, its CSV). The one place a data dictionary
// will replace: until it exists, a value reads as the breakdown shows it (the bare code, '(empty)').
import type { FieldValue } from '../../../shared/contract';
import { valueLabel } from './filterKinds';

export function fieldValueLabel(_field: string, value: FieldValue): string {
  return valueLabel(value);
}
