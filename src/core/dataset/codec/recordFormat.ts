// How one record (its values in catalog order) is written out: as the search response's JSON
// object, as a JSON Lines line and as an RFC 4180 CSV line. Export and search share these, so an
// exported file says exactly what the API says.
import { FIELDS, FIELD_NAMES } from '../../../shared/fields';

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

// `"PID":`, `,"HHID":`, ...: precomputed once so a record's JSON is a walk over its values.
const KEY_PREFIXES = FIELDS.map((f, i) => (i === 0 ? '{' : ',') + JSON.stringify(f.name) + ':');

export function recordToObject(values: RecordValues): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (let i = 0; i < FIELD_NAMES.length; i++) out[FIELD_NAMES[i]!] = values[i]!;
  return out;
}

// ---- Straight from the stored text -------------------------------------------------------------
// A record is stored as the JSON array text DatasetWriter wrote (strings and finite numbers only,
// no whitespace). Export and search turn that text into CSV or a JSON object without JSON.parse,
// whose 392 values a record kept the garbage collector busy for most of an export. A number's JSON
// text is its shortest form, a string's is already JSON.

// A JSON string token, or a number token, of the stored array.
const ELEMENT = /"(?:[^"\\]|\\.)*"|[-+.\deE]+/g;
// A JSON string with nothing to decode and no comma: its CSV field is its content, unquoted.
const PLAIN_STRING = /"([^",\\]*)"/g;

/** The CSV line of a stored record (test/support/recordReference.ts holds the plain definition it must equal). */
export function storedRecordToCsvLine(text: string): string {
  // Left quoted: strings with a comma, whose JSON quoting is already RFC 4180 quoting.
  if (!text.includes('\\')) return text.slice(1, -1).replace(PLAIN_STRING, '$1');
  // JSON escapes (a quote, a control character, a backslash): decode those strings properly.
  return text.slice(1, -1).replace(ELEMENT, (token) => (token.charCodeAt(0) === 34 ? csvField(JSON.parse(token) as string) : token));
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const CLOSE_BRACKET = 93;

/** Index just past the JSON string token opening at `i`, or -1 when the text ends inside it. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return -1;
    // Escaped only if preceded by an odd run of backslashes.
    let b = j - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((j - 1 - b) % 2 === 0) return j + 1;
    j++;
  }
}

/** Index just past the element (string or number token) opening at `i`: -1 when cut short. */
function elementEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === QUOTE) return stringEnd(text, i);
  let j = i;
  for (let c = text.charCodeAt(j); c !== COMMA && c !== CLOSE_BRACKET; c = text.charCodeAt(j)) {
    if (j >= text.length) return -1;
    j++;
  }
  return j;
}

/**
 * The search response's JSON object of a stored record (equal to test/support/recordReference.ts's plain definition).
 * A walk from token to token (indexOf finds each end) with each field's `,"NAME":` put in front:
 * a third faster than a regular-expression replace with a callback per value, which was the
 * biggest cost of a search answer.
 */
export function storedRecordToJson(text: string): string {
  const last = text.length - 1;
  let out = '';
  let k = 0;
  for (let i = 1; i < last; k++) {
    const end = elementEnd(text, i);
    if (end < 0 || k >= KEY_PREFIXES.length) throw new Error('Malformed stored record.');
    out += KEY_PREFIXES[k] + text.slice(i, end);
    i = end + 1;
  }
  return k === 0 ? '{}' : out + '}';
}

/**
 * The first `count` values of a stored record (the preview needs 20 of 392), or null when `text`
 * is a stored record cut short (the preview reads only its first characters) before they end.
 * Token by token from the start, so a cut inside a string can never be misread as values.
 */
export function parseStoredPrefix(text: string, count: number): RecordValues | null {
  let i = 1;
  for (let n = 0; n < count; n++) {
    const end = elementEnd(text, i);
    if (end < 0) return null;
    const next = text.charCodeAt(end);
    if (next === CLOSE_BRACKET) return JSON.parse(text.slice(0, end + 1)) as RecordValues;
    if (next !== COMMA) return null;
    i = end + 1;
  }
  return JSON.parse(text.slice(0, i - 1) + ']') as RecordValues;
}

/**
 * The values at `indexes` (ascending) of a stored record, or null when `text` is cut short before
 * the last of them ends. The preview wants 5 values among the first 20: decoding only those, and
 * a string with no escape by slicing, costs a third of parsing the 20.
 */
export function parseStoredValues(text: string, indexes: readonly number[]): RecordValues | null {
  const out: Array<string | number> = [];
  let i = 1;
  let want = 0;
  for (let n = 0; want < indexes.length; n++) {
    const end = elementEnd(text, i);
    if (end < 0) return null;
    const next = text.charCodeAt(end);
    if (next !== COMMA && next !== CLOSE_BRACKET) return null;
    if (n === indexes[want]) {
      want++;
      const escape = text.indexOf('\\', i);
      if (text.charCodeAt(i) !== QUOTE) out.push(Number(text.slice(i, end)));
      else out.push(escape < 0 || escape >= end ? text.slice(i + 1, end - 1) : (JSON.parse(text.slice(i, end)) as string));
    }
    if (next === CLOSE_BRACKET) break;
    i = end + 1;
  }
  return want === indexes.length ? out : null;
}

// ---- Straight from the stored bytes ------------------------------------------------------------
// A search page of 25 full records is ~200 KB of JSON. Built as a JS string it is decoded from
// SQLite's UTF-8, pieced together from ~800 strings a record and encoded back to UTF-8 on the
// socket: that was half the server's CPU under load. From the stored bytes it is one pass of byte
// copies into one buffer. The structural characters (quote, backslash, comma) are ASCII and never
// occur inside a multi-byte UTF-8 sequence, so scanning bytes is as exact as scanning characters,
// and the bytes are exactly those of the string path's text.

const KEY_BYTES_TOTAL = KEY_PREFIXES.reduce((n, k) => n + Buffer.byteLength(k, 'utf8'), 0);

/**
 * The JSON object of a record with every field absent ("" or 0), with where each field's key starts
 * (`fieldStarts`, one more at the closing brace) and where its value starts (`valueStarts`). About
 * half of a vendor record's fields are absent, and a run of them with the next field's key is the
 * same bytes in every record: one copy from here, instead of a copy a key.
 */
const ABSENT_JSON = Buffer.from(KEY_PREFIXES.map((k, i) => k + JSON.stringify(FIELDS[i]!.type === 'string' ? '' : 0)).join(''), 'utf8');
const fieldStarts = new Uint32Array(FIELDS.length + 1);
const valueStarts = new Uint32Array(FIELDS.length);
for (let i = 0, o = 0; i < FIELDS.length; i++) {
  fieldStarts[i] = o;
  valueStarts[i] = o += Buffer.byteLength(KEY_PREFIXES[i]!, 'utf8');
  fieldStarts[i + 1] = o += FIELDS[i]!.type === 'string' ? 2 : 1;
}

/** Whether the value `record[from, to)` is field k's absent value: the same bytes as ABSENT_JSON holds for it (one or two). */
function isAbsent(record: Uint8Array, from: number, to: number, k: number): boolean {
  const at = valueStarts[k]!;
  const length = fieldStarts[k + 1]! - at;
  return to - from === length && record[from] === ABSENT_JSON[at] && (length === 1 || record[from + 1] === ABSENT_JSON[at + 1]);
}

/**
 * Copies the JSON object of one stored record (its array's bytes) into `out` at `o`; returns the end.
 * A run of absent values goes out with the key of the value after it in one copy from ABSENT_JSON;
 * a present value's bytes byte by byte (most are a few bytes). A third faster than a copy a key on
 * generated records, and as fast when no value is absent (docs/performance.md).
 */
function copyRecordJson(record: Uint8Array, out: Buffer, o: number): number {
  const last = record.length - 1; // the closing ']'
  if (last < 1 || record[0] !== 0x5b || record[last] !== CLOSE_BRACKET) throw new Error('Malformed stored record.');
  if (last === 1) {
    out[o++] = 0x7b;
    out[o++] = 0x7d;
    return o;
  }
  const fields = FIELDS.length;
  /** The field whose value ends next, and the first of the absent values not yet copied. */
  let k = 0;
  let run = 0;
  let inString = false;
  let tokenStart = 1;
  for (let j = 1; j <= last; j++) {
    const c = record[j]!;
    if (inString) {
      if (c === BACKSLASH) j++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === COMMA || j === last) {
      if (k === fields) throw new Error('Malformed stored record.');
      if (!isAbsent(record, tokenStart, j, k)) {
        // The absent values before it, with this value's key, then its bytes.
        o += ABSENT_JSON.copy(out, o, fieldStarts[run]!, valueStarts[k]!);
        for (let b = tokenStart; b < j; b++) out[o++] = record[b]!;
        run = k + 1;
      }
      k++;
      tokenStart = j + 1;
    }
  }
  o += ABSENT_JSON.copy(out, o, fieldStarts[run]!, fieldStarts[k]!);
  out[o++] = 0x7d;
  return o;
}

/**
 * `head` + the search response's JSON objects of stored records (as bytes), comma-separated, +
 * `tail`, as one buffer: the bytes of `head + records.map(storedRecordToJson).join(',') + tail`.
 */
export function storedRecordsToJsonBytes(
  head: string,
  records: readonly Uint8Array[],
  tail: string,
  /** Where the bytes go: a buffer of at least `size` bytes (the HTTP server reuses its own). */
  allocate: (size: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + records.length;
  for (const r of records) size += r.length + KEY_BYTES_TOTAL;
  const out = allocate(size);
  let o = out.write(head, 0);
  for (let i = 0; i < records.length; i++) {
    if (i > 0) out[o++] = COMMA;
    o = copyRecordJson(records[i]!, out, o);
  }
  o += out.write(tail, o);
  return out.subarray(0, o);
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * The CSV lines of stored records, each ending in CRLF, as one buffer: the bytes of
 * `texts.map((t) => storedRecordToCsvLine(t) + '\r\n').join('')`. Most records hold no string
 * with a comma or a JSON escape, and their CSV line is their text without its brackets and quotes:
 * each is written as UTF-8 and compacted in place (~3-4 µs a record, against 11-18 for the
 * regular-expression replace and the join and encoding after it). The rest take storedRecordToCsvLine.
 */
export function storedRecordsToCsvBytes(texts: readonly string[], allocate: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  let size = 0;
  // UTF-8 takes at most 3 bytes a UTF-16 unit; a CSV line is never longer than its JSON text.
  for (const text of texts) size += text.length * 3 + 2;
  const out = allocate(size);
  let o = 0;
  for (const text of texts) {
    const start = o;
    const n = out.write(text, start, 'utf8');
    let w = start;
    let inString = false;
    let plain = true;
    for (let r = start + 1, end = start + n - 1; r < end; r++) {
      const c = out[r]!;
      if (c === QUOTE) {
        inString = !inString;
        continue;
      }
      // A comma keeps its string quoted; an escape needs decoding: the general path does both.
      if (inString && (c === COMMA || c === BACKSLASH)) {
        plain = false;
        break;
      }
      out[w++] = c;
    }
    o = plain ? w : start + out.write(storedRecordToCsvLine(text), start, 'utf8');
    out[o++] = CR;
    out[o++] = LF;
  }
  return out.subarray(0, o);
}

/**
 * The JSON Lines of stored records, each ending in a newline, as one buffer: the bytes of
 * `texts.map((t) => storedRecordToJson(t) + '\n').join('')`, copied with their keys put in between
 * (copyRecordJson) instead of pieced together from strings.
 */
export function storedRecordsToJsonLinesBytes(texts: readonly string[], allocate: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  let size = 0;
  for (const text of texts) size += text.length * 3 + KEY_BYTES_TOTAL + 3;
  const out = allocate(size);
  let scratch = Buffer.allocUnsafe(64 * 1024);
  let o = 0;
  for (const text of texts) {
    if (scratch.length < text.length * 3) scratch = Buffer.allocUnsafe(text.length * 3);
    const n = scratch.write(text, 0, 'utf8');
    o = copyRecordJson(scratch.subarray(0, n), out, o);
    out[o++] = LF;
  }
  return out.subarray(0, o);
}
