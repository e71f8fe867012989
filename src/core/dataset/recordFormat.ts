// How one record (374 values in catalog order) is written out: as the search response's JSON
// object, as a JSON Lines line and as an RFC 4180 CSV line. Export and search share these, so an
// exported file says exactly what the API says.
import { FIELDS, FIELD_NAMES } from '../../shared/fields';

export type RecordValues = ReadonlyArray<string | number>;

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field. Hand-written rather than csv-stringify because export calls it for every value of
 * every record (392 a record, the hot loop of an export); the rule is RFC 4180's and the export
 * tests read the output back with csv-parse. Numbers are in their shortest JSON form, as in the
 * search response.
 */
export function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export const CSV_HEADER = FIELD_NAMES.map(csvField).join(',');

export function recordToCsvLine(values: RecordValues): string {
  let line = csvField(values[0]!);
  for (let i = 1; i < values.length; i++) line += ',' + csvField(values[i]!);
  return line;
}

// `"PID":`, `,"HHID":`, ...: precomputed once so a record's JSON is a walk over its values.
const KEY_PREFIXES = FIELDS.map((f, i) => (i === 0 ? '{' : ',') + JSON.stringify(f.name) + ':');

/** The search response's record, as JSON text: all 374 fields, in order, upper-case names. */
export function recordToJson(values: RecordValues): string {
  let out = '';
  for (let i = 0; i < KEY_PREFIXES.length; i++) {
    const v = values[i]!;
    out += KEY_PREFIXES[i] + (typeof v === 'number' ? String(v) : JSON.stringify(v));
  }
  return out + '}';
}

export function recordToObject(values: RecordValues): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (let i = 0; i < FIELD_NAMES.length; i++) out[FIELD_NAMES[i]!] = values[i]!;
  return out;
}
