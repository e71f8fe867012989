// Which fields an export writes, and whether coded values are written as codes or as their meanings:
// a preset (mailing, phone, full record) or any record fields, in the order given. The app's Export
// panel, the handler and the CLI read the same presets and the same check, so an unknown name is
// refused the same way everywhere, before anything is written. Pure: runs in Node and the browser.
import { AppError } from './errors';
import { FIELD_NAMES, fieldByName } from './fields';

export type ExportValues = 'codes' | 'labels';
export const EXPORT_VALUES: readonly ExportValues[] = ['codes', 'labels'];

/** The presets, by name: what a mail house, a call centre and an analyst each want. */
export const EXPORT_PRESETS = {
  mailing: ['PID', 'FNAME', 'MNAME', 'LNAME', 'SUFFIX', 'ADDRESS', 'CITY', 'STATE', 'ZIP', 'Z4'],
  phone: ['PID', 'FNAME', 'LNAME', 'PHONE', 'DNC', 'PHONE2', 'DNC2', 'PHONE3', 'DNC3', 'CITY', 'STATE', 'ZIP'],
  full: [...FIELD_NAMES],
} as const satisfies Record<string, readonly string[]>;
export type ExportPreset = keyof typeof EXPORT_PRESETS;
export const EXPORT_PRESET_LABELS: Readonly<Record<ExportPreset, string>> = {
  mailing: 'Mailing: name and postal address',
  phone: 'Phone: name, phones and their do-not-call flags',
  full: 'Full record: all 392 fields',
};

/** What an export writes: its fields in order (record field names) and how coded values read. */
export interface ExportOutput {
  fields: string[];
  values: ExportValues;
}

/** Whether an output is the whole record with codes: the plain export, written as before. */
export function isWholeRecord(output: ExportOutput | undefined): boolean {
  return (
    !output ||
    (output.values === 'codes' && output.fields.length === FIELD_NAMES.length && output.fields.every((f, i) => f === FIELD_NAMES[i]))
  );
}

const isPreset = (name: string): name is ExportPreset => Object.hasOwn(EXPORT_PRESETS, name.toLowerCase());

/**
 * The fields an export writes from what was asked: preset names (any case) and record field names
 * (any case), expanded and each kept once, in the order given; nothing asked is the full record.
 * Unknown names are a 400 naming every one of them (each cut to 40 characters), field `fields`.
 */
export function resolveExportFields(asked: readonly string[] | undefined): string[] {
  if (!asked || asked.length === 0) return [...FIELD_NAMES];
  const out: string[] = [];
  const unknown: string[] = [];
  for (const raw of asked) {
    const name = raw.trim();
    const names = isPreset(name) ? EXPORT_PRESETS[name.toLowerCase() as ExportPreset] : [fieldByName(name)?.name];
    for (const field of names) {
      if (field === undefined) unknown.push(name);
      else if (!out.includes(field)) out.push(field);
    }
  }
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).map((n) => JSON.stringify(n.length > 40 ? `${n.slice(0, 40)}…` : n));
    const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
    throw new AppError(
      'invalid_request',
      `Unknown export field${unknown.length === 1 ? '' : 's'} ${shown.join(', ')}${more}: use record field names or a preset (${Object.keys(EXPORT_PRESETS).join(', ')}).`,
      'fields',
    );
  }
  return out;
}

/** The preset whose fields these are exactly, if any (the export history names it). */
export function presetOf(fields: readonly string[]): ExportPreset | null {
  for (const [name, list] of Object.entries(EXPORT_PRESETS) as Array<[ExportPreset, readonly string[]]>)
    if (list.length === fields.length && list.every((f, i) => f === fields[i])) return name;
  return null;
}
