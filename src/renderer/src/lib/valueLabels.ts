// The one place a field's value turns into words, for every panel (the cross-tab and its CSV, the
// breakdown bars, the value checklists, the chips, the count line and the record drawer): the
// codebook's meaning of a code (src/shared/codebook.ts), the bare code marked unknown when the book
// does not know it, and values of uncoded fields as they are. Coded values also sort here, in the
// codebook's natural order (income bands from lowest to highest), never by count.
import { CODEBOOK, codeLabel, compareCodes } from '../../../shared/codebook';
import type { FieldValue } from '../../../shared/contract';
import { countyName } from '../../../shared/geography';
import { valueLabel } from './filterKinds';

/** True when the codebook lists the field's codes and their meanings. */
export function isCoded(field: string): boolean {
  return CODEBOOK[field.toUpperCase()] !== undefined;
}

/** A value as a panel shows it: the words, the code behind them, and whether the book knows the code. */
export interface ValueText {
  /** The code as the data holds it ('' for empty). */
  readonly code: string;
  /** The meaning ("$50,000–$74,999"), or the bare code ("(empty)" for '') when there is none. */
  readonly label: string;
  /** The field is coded (the code is worth showing beside the label). */
  readonly coded: boolean;
  /** A coded field's code the book does not list: shown bare, marked unknown, never dropped. */
  readonly unknown: boolean;
}

export function valueText(field: string, value: FieldValue): ValueText {
  const code = String(value);
  if (!isCoded(field)) return { code, label: valueLabel(value), coded: false, unknown: false };
  const meaning = codeLabel(field, value);
  return { code, label: meaning ?? valueLabel(value), coded: true, unknown: meaning === undefined };
}

/**
 * One line of words for a value (tables, CSV, chips): the meaning, or the bare code marked unknown. Given
 * the audience's one state, a county code (CNTYCD) reads as the county's name (src/shared/geography).
 */
export function fieldValueLabel(field: string, value: FieldValue, state?: string): string {
  const county = state && field.toUpperCase() === 'CNTYCD' ? countyName(state, String(value)) : undefined;
  if (county) return county;
  const t = valueText(field, value);
  return t.unknown ? `${t.label} (unknown code)` : t.label;
}

/** The code behind the words, for a title or secondary text: "code E", "empty", "unknown code Q". */
export function valueCodeNote(field: string, value: FieldValue): string {
  const t = valueText(field, value);
  if (!t.coded) return '';
  if (t.unknown) return `unknown code ${valueLabel(value)}`;
  return t.code === '' ? 'code empty' : `code ${t.code}`;
}

/** Label and code together on one line: "$50,000–$74,999 (E)", "No (empty)"; uncoded values as they are. */
export function valueWithCode(field: string, value: FieldValue): string {
  const t = valueText(field, value);
  if (!t.coded) return t.label;
  if (t.unknown) return `${t.label} (unknown code)`;
  return t.code === t.label ? t.label : `${t.label} (${t.code === '' ? 'empty' : t.code})`;
}

/**
 * A coded field's values in the codebook's natural order (the back end answers with the most
 * frequent values; they are sorted after the answer arrives); unknown codes after the known ones.
 * Other fields' values keep the order they came in. Returns a new array.
 */
export function sortFieldValues<T extends { value: FieldValue }>(field: string, rows: readonly T[]): T[] {
  if (!isCoded(field)) return [...rows];
  const compare = compareCodes(field.toUpperCase());
  return [...rows].sort((a, b) => compare(a.value, b.value));
}

/** Text that matches a find-a-value box: the code and its meaning. */
export function valueSearchText(field: string, value: FieldValue): string {
  const t = valueText(field, value);
  return `${t.code} ${t.label}`.toUpperCase();
}

/** A filter's values in words for chips, the count line and saved audiences: "Female, Male", "A, B, C, D +2". */
export function valuesSummary(field: string, values: readonly FieldValue[], max = 4, state?: string): string {
  const shown = values
    .slice(0, max)
    .map((v) => fieldValueLabel(field, v, state))
    .join(', ');
  return values.length > max ? `${shown} +${values.length - max}` : shown;
}
