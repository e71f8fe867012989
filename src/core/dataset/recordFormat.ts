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

// ---- Straight from the stored text -------------------------------------------------------------
// A record is stored as the JSON array text DatasetWriter wrote (strings and finite numbers only).
// Export and search turn that text into CSV or a JSON object without JSON.parse and without
// piecing strings together: parsing makes 392 values a record and concatenation 392 string pieces,
// and the garbage collector then took 60% of an export (15,000 records/s). One regular-expression
// replace over the text gives a flat string at once. A number's JSON text is its shortest form.

// A JSON string token, or a number token, of the stored array.
const ELEMENT = /"(?:[^"\\]|\\.)*"|[-+.\deE]+/g;
// A JSON string with nothing to decode and no comma: its CSV field is its content, unquoted.
const PLAIN_STRING = /"([^",\\]*)"/g;
const KEYS = FIELDS.map((f) => JSON.stringify(f.name) + ':');

/** The CSV line of a stored record, equal to recordToCsvLine(JSON.parse(text)). */
export function storedRecordToCsvLine(text: string): string {
  // Left quoted: strings with a comma, whose JSON quoting is already RFC 4180 quoting.
  if (!text.includes('\\')) return text.slice(1, -1).replace(PLAIN_STRING, '$1');
  // JSON escapes (a quote, a control character, a backslash): decode those strings properly.
  return text.slice(1, -1).replace(ELEMENT, (token) => (token.charCodeAt(0) === 34 ? csvField(JSON.parse(token) as string) : token));
}

/** The search response's JSON object of a stored record, equal to recordToJson(JSON.parse(text)). */
export function storedRecordToJson(text: string): string {
  let k = 0;
  return '{' + text.slice(1, -1).replace(ELEMENT, (token) => KEYS[k++] + token) + '}';
}

/** The first `count` values of a stored record (the preview needs 20 of 392). */
export function parseStoredPrefix(text: string, count: number): RecordValues {
  ELEMENT.lastIndex = 0;
  let end = 1;
  for (let n = 0; n < count; n++) {
    const m = ELEMENT.exec(text);
    if (!m) break;
    end = m.index + m[0].length;
  }
  ELEMENT.lastIndex = 0;
  return JSON.parse(text.slice(0, end) + ']') as RecordValues;
}
