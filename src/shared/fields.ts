// The 392 record fields of a search record, in record order (docs/interface.md, "Records").
// This is the one declaration of the fields: the database schema, filter validation, JSON shape,
// CSV header and the renderer's field picker all derive from it. test/shared/fieldCatalog.test.ts checks it
// against docs/spec/record-fields.tsv, the user's list kept as data. The rows themselves are in fieldRows.ts.
import { FIELD_ROWS, type FieldGroup, type FieldType } from './fieldRows';

export type { FieldGroup, FieldType };

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  readonly group: FieldGroup;
  /** The interface's own description of the field (the as_documented column of docs/spec/record-fields.tsv). */
  readonly documented: string;
}

export const FIELDS: readonly FieldDef[] = Object.freeze(
  FIELD_ROWS.map(([name, type, group, documented]) => Object.freeze({ name, type, group, documented })),
);

export const FIELD_NAMES: readonly string[] = Object.freeze(FIELDS.map((f) => f.name));

const BY_NAME = new Map(FIELDS.map((f, i) => [f.name, i]));

/** Position of a field in record order, or -1; names are matched case-insensitively. */
export function fieldIndex(name: string): number {
  return BY_NAME.get(name.toUpperCase()) ?? -1;
}

export function fieldByName(name: string): FieldDef | undefined {
  const i = fieldIndex(name);
  return i < 0 ? undefined : FIELDS[i];
}

export const FIELD_GROUP_LABELS: Readonly<Record<FieldGroup, string>> = {
  identity: 'Identity, address and geography',
  household: 'Household and person attributes',
  cluster: 'Cluster codes',
  mail_order_score: 'Mail-order scores',
  interest_index: 'Interest indexes',
  behaviour_flag: 'Behavioural flags',
  census: 'Census area',
  reserved: 'Reserved',
};

/** The compact record of the preview operation: lower-case names over these record fields. */
export const PREVIEW_FIELDS = ['PID', 'FNAME', 'LNAME', 'CITY', 'STATE'] as const;
