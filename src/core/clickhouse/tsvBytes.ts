// storedRecordToClickHouseTsv (tsvLine.ts) over a record's stored UTF-8 bytes, written into the
// loader's batch buffer: the load converts every record, and decoding each to a JS string, cutting
// it into 392 strings and joining them again was most of the loader's own work. Without a backslash
// in the JSON text no string holds a quote, a control character or a backslash, so the fields are
// the text's bytes with the quotes dropped and the separating commas made tabs; a record with one
// takes the string path. The bytes written are exactly the string path's, UTF-8 encoded.
import { FIELDS, fieldIndex } from '../../shared/fields';
import { storedRecordToClickHouseTsv } from './tsvLine';
import { bitsOfFloat } from './values';

const QUOTE = 0x22;
const COMMA = 0x2c;
const TAB = 0x09;
const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const LAT = fieldIndex('LATITUDE');
const LON = fieldIndex('LONGITUDE');
const LAST = FIELDS.length - 1;

/**
 * Bytes a record's line takes at most: its fields (at most its stored bytes, the coordinates' bits
 * aside), its rank and its text again, which the string path escapes (a backslash doubled).
 */
export const tsvLineBytes = (stored: number): number => 3 * stored + 64;

/**
 * Writes the TabSeparated line (with its newline) of the stored record `bytes` whose PID has `rank`
 * in its state into `out` at `at` (room: tsvLineBytes(bytes.length)); returns where it ends.
 */
export function writeClickHouseTsv(bytes: Uint8Array, rank: number, out: Buffer, at: number): number {
  const end = bytes.length;
  if (bytes.indexOf(BACKSLASH) >= 0 || end < 2 || bytes[0] !== OPEN || bytes[end - 1] !== CLOSE) return viaText(bytes, rank, out, at);
  let o = at;
  let i = 1;
  for (let k = 0; k <= LAST; k++) {
    if (k > 0) {
      if (bytes[i] !== COMMA) return viaText(bytes, rank, out, at);
      i++;
      out[o++] = TAB;
    }
    if (bytes[i] === QUOTE) {
      const close = bytes.indexOf(QUOTE, i + 1);
      if (close < 0) return viaText(bytes, rank, out, at);
      for (let j = i + 1; j < close; j++) out[o++] = bytes[j]!;
      i = close + 1;
      continue;
    }
    let stop = i;
    while (stop < end - 1 && bytes[stop] !== COMMA) stop++;
    if (k === LAT || k === LON) o += out.write(bitsOfFloat(Number(latin(bytes, i, stop))), o, 'latin1');
    else for (let j = i; j < stop; j++) out[o++] = bytes[j]!;
    i = stop;
  }
  if (i !== end - 1) return viaText(bytes, rank, out, at);
  out[o++] = TAB;
  o += out.write(String(rank), o, 'latin1');
  out[o++] = TAB;
  out.set(bytes, o);
  o += bytes.length;
  out[o++] = NEWLINE;
  return o;
}

/** A number's JSON text (ASCII) as a string. */
function latin(bytes: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let j = from; j < to; j++) s += String.fromCharCode(bytes[j]!);
  return s;
}

/** The string path, for records with an escape (or not shaped as expected: the string path says why). */
function viaText(bytes: Uint8Array, rank: number, out: Buffer, at: number): number {
  return (
    at +
    out.write(storedRecordToClickHouseTsv(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'), rank), at, 'utf8')
  );
}
