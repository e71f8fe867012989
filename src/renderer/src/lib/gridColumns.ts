// The people grid's columns: any record field, headed by its dictionary label, coded values shown as
// their meanings (county codes as county names), as the record drawer shows them. The preview answers
// five fields cheaply; a column beyond them makes the grid read whole records (audience/search).
import type { FieldValue, PreviewRecord } from '../../../shared/contract';
import { fieldLabel } from './fieldInfo';
import { fieldValueLabel } from './valueLabels';

/** A grid row: record fields by name. */
export type GridRow = Record<string, FieldValue>;

/** The fields audience/preview answers, by the record field each holds. */
const PREVIEW_FIELDS: Record<string, keyof PreviewRecord> = { PID: 'pid', FNAME: 'fname', LNAME: 'lname', CITY: 'city', STATE: 'state' };

/** True when the preview answers every column (else the grid reads whole records). */
export function previewHolds(columns: readonly string[]): boolean {
  return columns.every((c) => c in PREVIEW_FIELDS);
}

/** The column's id: the preview's own key for its five fields (pid, city…), else the field's name. */
export function columnId(field: string): string {
  return PREVIEW_FIELDS[field] ?? field;
}

/** A preview record as a grid row keyed by field name. */
export function previewRow(r: PreviewRecord): GridRow {
  const row: GridRow = {};
  for (const [field, key] of Object.entries(PREVIEW_FIELDS)) row[field] = r[key];
  return row;
}

/** Fields shown as stored though the codebook knows them: the state's postal code reads better in a column than its name. */
const AS_STORED = new Set(['STATE']);

/** A cell's text: the code's meaning for coded fields, the county's name for CNTYCD, else the value. */
export function cellText(field: string, row: GridRow | undefined): string {
  if (!row) return '';
  const value = row[field];
  if (value === undefined || value === null || value === '') return '';
  if (AS_STORED.has(field)) return String(value);
  return fieldValueLabel(field, value, typeof row.STATE === 'string' ? row.STATE : undefined);
}

/** The column's header: the field's label ("Estimated household income"), its name in the tooltip. */
export function columnHeader(field: string): { headerName: string; headerTooltip: string } {
  const label = fieldLabel(field);
  return { headerName: label, headerTooltip: label === field ? field : `${label} (${field})` };
}
