// What a vendor row must look like to become a record, and how it is normalised: the header maps
// columns (any case, any order) to catalog fields; each row is checked and converted field by field,
// and either becomes a complete record (392 values in catalog order) or is rejected whole with the
// first field at fault. docs/import.md states these rules for people.
import { AppError } from '../../../shared/errors';
import { FIELDS, fieldIndex } from '../../../shared/fields';
import { STATES } from '../../../shared/states';
import { splitSimpleLine } from './quotedLines';

/** Columns every file must have: a record cannot be placed (PID, STATE) or filtered (GENDER) without them. */
export const REQUIRED_COLUMNS = ['PID', 'STATE', 'GENDER'] as const;

// How a column's cell is checked; one code per column, decided once from the header. The kinds
// before Pid accept an empty cell as absent data.
const enum Kind {
  Ignored,
  Text,
  Integer,
  Decimal,
  Pid,
  State,
  Gender,
}

/** A record with every field absent: "" for strings, 0 for numbers (the interface's absent data). */
const ABSENT: ReadonlyArray<string | number> = FIELDS.map((f) => (f.type === 'string' ? '' : 0));

const QUOTE = 34;
const PID_RE = /^[0-9A-F]{32}$/;
const WHOLE_RE = /^\d+$/;
const DECIMAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export interface HeaderMap {
  /** Cells a row must have: the header's column count. */
  width: number;
  /** For each column, the catalog index it fills, or -1 when the column is unknown (ignored). */
  fieldOf: number[];
  kinds: Kind[];
  /** Names of the ignored columns, as written in the header. */
  unknown: string[];
}

function kindOf(index: number): Kind {
  const f = FIELDS[index]!;
  if (f.name === 'PID') return Kind.Pid;
  if (f.name === 'STATE') return Kind.State;
  if (f.name === 'GENDER') return Kind.Gender;
  return f.type === 'integer' ? Kind.Integer : f.type === 'number' ? Kind.Decimal : Kind.Text;
}

/**
 * Whole-number fields with a range of their own, and the reason a value outside it reads as: an age
 * is in years, and nobody is 121 (docs/import.md). The other integer fields take 0 to 2^53 - 1.
 */
const INTEGER_RULES: Readonly<Record<string, { max: number; reason: string }>> = {
  AGE: { max: 120, reason: 'AGE values must be whole numbers of years from 0 to 120' },
};

/** Decimal fields are degrees: a latitude beyond ±90 or a longitude beyond ±180 is not a place. */
const DECIMAL_LIMIT: Readonly<Record<string, number>> = { LATITUDE: 90, LONGITUDE: 180 };

/**
 * The user's choice for columns whose header is not (or not read as) a record field: a vendor header,
 * as written (compared trimmed and in any case), to the record field it fills, or '' to skip it.
 */
export type ColumnMap = Readonly<Record<string, string>>;

/** A column map with its headers upper-cased and its fields checked: an unknown field is a 400 naming it. */
export function checkColumnMap(columns: ColumnMap | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const [header, field] of Object.entries(columns ?? {})) {
    const index = field.trim() === '' ? -1 : fieldIndex(field.trim());
    if (field.trim() !== '' && index < 0)
      throw new AppError(
        'invalid_request',
        `The column ${JSON.stringify(header.slice(0, 40))} is mapped to ${JSON.stringify(field.slice(0, 40))}, which is not a record field.`,
        'columns',
      );
    out.set(header.trim().toUpperCase(), index);
  }
  return out;
}

/**
 * Maps a header row (the user's column map first, then the field names); a missing required column or
 * a field named twice makes the file unusable.
 */
export function mapHeader(file: string, names: readonly string[], columns?: ColumnMap): HeaderMap {
  const chosen = checkColumnMap(columns);
  const fieldOf: number[] = [];
  const kinds: Kind[] = [];
  const unknown: string[] = [];
  const seen = new Map<number, number>();
  names.forEach((raw, column) => {
    const name = raw.trim();
    const mapped = chosen.get(name.toUpperCase());
    const index = mapped ?? (name === '' ? -1 : fieldIndex(name));
    if (index >= 0 && seen.has(index))
      throw new AppError(
        'invalid_request',
        `${file}: the header names ${FIELDS[index]!.name} twice (columns ${seen.get(index)! + 1} and ${column + 1}).`,
        'files',
      );
    if (index >= 0) seen.set(index, column);
    else unknown.push(name === '' ? `(unnamed column ${column + 1})` : name);
    fieldOf.push(index);
    kinds.push(index >= 0 ? kindOf(index) : Kind.Ignored);
  });
  const missing = REQUIRED_COLUMNS.filter((name) => !seen.has(fieldIndex(name)));
  if (missing.length > 0)
    throw new AppError(
      'invalid_request',
      `${file}: the header has no ${missing.join(', ')} column${missing.length > 1 ? 's' : ''}; ` +
        `it reads ${JSON.stringify(names.slice(0, 5).join(' ').slice(0, 60))}${names.length > 5 ? '…' : ''} (wrong file or delimiter?).`,
      'files',
    );
  return { width: names.length, fieldOf, kinds, unknown };
}

/**
 * The field each column would fill (the user's column map first, then the field names), without the
 * checks mapHeader makes: what the import screen shows, so a file still missing a required column can
 * have one mapped.
 */
export function previewColumns(names: readonly string[], columns?: ColumnMap): Array<string | null> {
  const chosen = checkColumnMap(columns);
  return names.map((raw) => {
    const name = raw.trim();
    const index = chosen.get(name.toUpperCase()) ?? (name === '' ? -1 : fieldIndex(name));
    return index >= 0 ? FIELDS[index]!.name : null;
  });
}

/** The value of a string of decimal digits within the safe integers, or -1. */
function wholeNumber(cell: string): number {
  if (cell.length > 15) return WHOLE_RE.test(cell) && Number.isSafeInteger(Number(cell)) ? Number(cell) : -1;
  let n = 0;
  for (let k = 0; k < cell.length; k++) {
    const digit = cell.charCodeAt(k) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

const quote = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

/**
 * Checks and converts rows of one file (the hot loop of an import: ~400 cells a row). `check` fills
 * `values`, one array reused for every row: no object is built per row, and the caller serialises
 * the record at once. Columns the header does not name keep their absent value; every named column
 * is written on every row, so nothing of a previous row survives. On a rejected row `field` and
 * `reason` say why (and `values` holds a mix of rows: not to be used).
 */
export class RowChecker {
  field = '';
  reason = '';
  /** The record of the row last checked, in catalog order. */
  readonly values: Array<string | number> = ABSENT.slice();
  /**
   * The largest value of each integer column (by column: the hot loop then looks nothing up by
   * name); 0 to 2^53 - 1 unless the field has a rule of its own (INTEGER_RULES).
   */
  private readonly integerMax: Float64Array;

  constructor(private readonly header: HeaderMap) {
    this.integerMax = Float64Array.from(header.fieldOf, (index) =>
      index < 0 ? 0 : (INTEGER_RULES[FIELDS[index]!.name]?.max ?? Number.MAX_SAFE_INTEGER),
    );
  }

  private reject(field: string, reason: string): false {
    this.field = field;
    this.reason = reason;
    return false;
  }

  /** Why an integer cell was refused: its field's own rule, else the range of every integer field. */
  private rejectInteger(index: number, cell: string): false {
    const name = FIELDS[index]!.name;
    const rule = INTEGER_RULES[name];
    if (rule) return this.reject(name, `${rule.reason}, not ${quote(cell)}`);
    return this.reject(name, `not a whole number from 0 to ${Number.MAX_SAFE_INTEGER}: ${quote(cell)}`);
  }

  /** `upperCase`: the caller knows that no cell changes in toUpperCase() (see RowParser.upperCase). */
  check(cells: readonly string[], upperCase = false): boolean {
    const { width, fieldOf, kinds } = this.header;
    if (cells.length !== width) return this.reject('', `has ${cells.length} fields where the header has ${width}`);
    for (let c = 0; c < width; c++) {
      const kind = kinds[c]!;
      if (kind !== Kind.Ignored && !this.take(c, kind, fieldOf[c]!, cells[c]!, upperCase)) return false;
    }
    return true;
  }

  /**
   * check() for a row given as its text (RowParser's RowSink.line): its cells are
   * splitSimpleLine(row), or null when its quotes need papaparse (a doubled quote, a line break
   * inside quotes, text after a closing quote: nothing is decided then, and the row goes to
   * papaparse). The cells are found here as they are checked, and an integer cell of digits alone is
   * read where it stands, so the ~400 cells of a row are not made into strings first. Anything else
   * than a row that passes (a wrong number of cells, a cell to trim or refuse) is checked again by
   * check() over the split row: the result, `values` and any reason are always check()'s.
   */
  checkRow(row: string, delimiter: string, upperCase = false): boolean | null {
    if (row.indexOf('"') >= 0) return this.checkQuotedRow(row, delimiter, upperCase);
    const { width, fieldOf, kinds } = this.header;
    const values = this.values;
    const integerMax = this.integerMax;
    const end = row.length;
    const split = delimiter.charCodeAt(0);
    let at = 0;
    for (let c = 0; c < width; c++) {
      if (at > end) return this.checkSplit(row, delimiter, upperCase); // fewer cells than columns
      const kind = kinds[c]!;
      let k = at;
      if (kind === Kind.Integer) {
        let n = 0;
        for (; k < end; k++) {
          const code = row.charCodeAt(k);
          if (code === split) break;
          const digit = code - 48;
          if (digit < 0 || digit > 9) return this.checkSplit(row, delimiter, upperCase);
          n = n * 10 + digit;
        }
        // Past 15 digits a double may not hold the number exactly: check() decides.
        if (k - at > 15 || n > integerMax[c]!) return this.checkSplit(row, delimiter, upperCase);
        values[fieldOf[c]!] = n; // no digits: 0, the absent value
      } else {
        while (k < end && row.charCodeAt(k) !== split) k++;
        if (kind !== Kind.Ignored && !this.take(c, kind, fieldOf[c]!, row.slice(at, k), upperCase))
          return this.checkSplit(row, delimiter, upperCase);
      }
      at = k + 1;
    }
    if (at <= end) return this.checkSplit(row, delimiter, upperCase); // more cells than columns
    return true;
  }

  /**
   * checkRow() for a row that holds a quote: apart, so that the loop over the ~400 cells of a row
   * without one tests no cell for a quote. A quoted cell's text runs to the next quote, which
   * must end the cell (else papaparse reads the row: checkSplit() says null).
   */
  private checkQuotedRow(row: string, delimiter: string, upperCase: boolean): boolean | null {
    const { width, fieldOf, kinds } = this.header;
    const values = this.values;
    const integerMax = this.integerMax;
    const end = row.length;
    const split = delimiter.charCodeAt(0);
    let at = 0;
    for (let c = 0; c < width; c++) {
      if (at > end) return this.checkSplit(row, delimiter, upperCase);
      const kind = kinds[c]!;
      // The cell's text is row[from, to); k ends at the delimiter after the cell (or the row's end).
      let from = at;
      let k = at;
      let to: number;
      if (row.charCodeAt(at) === QUOTE) {
        // Cells are short: a loop finds the closing quote sooner than a call to indexOf.
        from = ++k;
        while (k < end && row.charCodeAt(k) !== QUOTE) k++;
        if (k === end) return this.checkSplit(row, delimiter, upperCase); // never closed on this line
        to = k++;
        if (k < end && row.charCodeAt(k) !== split) return this.checkSplit(row, delimiter, upperCase);
      } else {
        while (k < end && row.charCodeAt(k) !== split) k++;
        to = k;
      }
      if (kind === Kind.Integer) {
        let n = 0;
        for (let i = from; i < to; i++) {
          const digit = row.charCodeAt(i) - 48;
          if (digit < 0 || digit > 9) return this.checkSplit(row, delimiter, upperCase);
          n = n * 10 + digit;
        }
        if (to - from > 15 || n > integerMax[c]!) return this.checkSplit(row, delimiter, upperCase);
        values[fieldOf[c]!] = n; // no digits: 0, the absent value
      } else if (kind !== Kind.Ignored && !this.take(c, kind, fieldOf[c]!, row.slice(from, to), upperCase))
        return this.checkSplit(row, delimiter, upperCase);
      at = k + 1;
    }
    if (at <= end) return this.checkSplit(row, delimiter, upperCase);
    return true;
  }

  /** check() over the row's cells, or null when its quotes need papaparse (checkRow). */
  private checkSplit(row: string, delimiter: string, upperCase: boolean): boolean | null {
    const cells = splitSimpleLine(row, 0, row.length, delimiter);
    return cells && this.check(cells, upperCase);
  }

  /**
   * Checks and converts the cell of column `c` (not an ignored one; field `index`) into `values`. Text and whole
   * numbers, nearly all of a row's cells, are handled here and the few other columns apart, which
   * keeps this small enough for V8 to inline into check()'s loop.
   */
  private take(c: number, kind: Kind, index: number, cell: string, upperCase: boolean): boolean {
    if (cell !== '' && (cell.charCodeAt(0) <= 32 || cell.charCodeAt(cell.length - 1) <= 32)) cell = cell.trim();
    // Many cells of a vendor row are empty: absent data ("" or 0; the kinds before Pid allow it).
    if (cell === '' && kind < Kind.Pid) this.values[index] = ABSENT[index]!;
    else if (kind === Kind.Text) this.values[index] = upperCase ? cell : cell.toUpperCase();
    else if (kind !== Kind.Integer) return this.takeOther(kind, index, cell);
    else {
      const n = wholeNumber(cell);
      if (n < 0 || n > this.integerMax[c]!) return this.rejectInteger(index, cell);
      this.values[index] = n;
    }
    return true;
  }

  /** take() for a decimal, the PID, the state or the gender. */
  private takeOther(kind: Kind, index: number, cell: string): boolean {
    const values = this.values;
    switch (kind) {
      case Kind.Decimal:
        return this.takeDecimal(index, cell);
      case Kind.Pid: {
        const pid = cell.toUpperCase();
        if (pid === '') return this.reject('PID', 'missing');
        if (!PID_RE.test(pid)) return this.reject('PID', `not 32 hexadecimal characters: ${quote(cell)}`);
        values[index] = pid;
        return true;
      }
      case Kind.State: {
        const state = cell.toUpperCase();
        if (state === '') return this.reject('STATE', 'missing');
        if (!Object.prototype.hasOwnProperty.call(STATES, state))
          return this.reject('STATE', `not the code of a US state or DC: ${quote(cell)}`);
        values[index] = state;
        return true;
      }
      case Kind.Gender: {
        const gender = cell.toUpperCase();
        if (gender === '') return this.reject('GENDER', 'missing');
        if (gender !== 'F' && gender !== 'M') return this.reject('GENDER', `not F or M: ${quote(cell)}`);
        values[index] = gender;
        return true;
      }
    }
    return true;
  }

  private takeDecimal(index: number, cell: string): boolean {
    const n = Number(cell);
    const name = FIELDS[index]!.name;
    const limit = DECIMAL_LIMIT[name] ?? Number.MAX_VALUE;
    if (!DECIMAL_RE.test(cell) || !(Math.abs(n) <= limit))
      return this.reject(
        name,
        limit === Number.MAX_VALUE ? `not a number: ${quote(cell)}` : `not a number from -${limit} to ${limit}: ${quote(cell)}`,
      );
    this.values[index] = n === 0 ? 0 : n; // no -0
    return true;
  }
}
