// The one way values are written into ClickHouse SQL text. Debian 12's ClickHouse 18.16 has no
// server-side query parameters (`{name:String}` with `param_name` fails there with "Unknown setting
// param_…"), so there every string a request carries (states, filter values, ZIPs, lookalike values)
// is written into the SQL as a literal by these functions, and only by them; a server that has
// query parameters receives those strings as parameters instead (sqlValues.ts chooses, per query).

const HEX = '0123456789ABCDEF';

function hexByte(byte: number): string {
  return `\\x${HEX[byte >> 4]}${HEX[byte & 15]}`;
}

/**
 * A ClickHouse string literal: quotes and backslashes escaped, every control character (NUL
 * included) and DEL as \xHH, other text as it is (UTF-8 on the wire). A lone surrogate, which no
 * stored UTF-8 value can hold, becomes its three WTF-8 bytes, so it matches nothing instead of
 * turning into U+FFFD and matching values that hold one.
 */
export function sqlString(value: string): string {
  let out = "'";
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x27) out += "\\'";
    else if (c === 0x5c) out += '\\\\';
    else if (c < 0x20 || c === 0x7f) out += hexByte(c);
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += value[i]! + value[i + 1]!;
        i++;
      } else out += hexByte(0xe0 | (c >> 12)) + hexByte(0x80 | ((c >> 6) & 0x3f)) + hexByte(0x80 | (c & 0x3f));
    } else out += value[i]!;
  }
  return out + "'";
}

/** A finite number as a literal (integers as integers); anything else is a programming error. */
export function sqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`Not a finite number for SQL: ${value}`);
  if (Number.isInteger(value)) {
    if (!Number.isSafeInteger(value)) throw new Error(`Not a safe integer for SQL: ${value}`);
    return String(value);
  }
  // A literal is parsed exactly by the server (unlike a number in a data format: see schema.ts).
  return String(value);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Whether a name may be a database or table name here: letters, digits and underscores. */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** A database, table or column name in backquotes; only plain names are accepted. */
export function sqlIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a plain identifier: ${JSON.stringify(name.slice(0, 70))}`);
  return '`' + name + '`';
}

/** A list of literals for IN (…); never empty (the caller decides what an empty list means). */
export function sqlStringList(values: readonly string[]): string {
  if (values.length === 0) throw new Error('An IN list needs at least one value.');
  return `(${values.map(sqlString).join(',')})`;
}
