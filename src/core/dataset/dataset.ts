// An open dataset file, read-only: the one place that holds SQL over `records`, `columns` and
// `states`. Everything above it speaks in positions (0-based, in (STATE, PID) order).
import { existsSync } from 'node:fs';
import { AppError } from '../../shared/errors';
import { FIELDS, PREVIEW_FIELDS, fieldIndex } from '../../shared/fields';
import { openSqlite, type Db, type Statement } from '../sqlite';
import { blobToVector, type Vector, type VectorKind } from './columnVector';
import { parseStoredValues, type RecordValues } from './recordFormat';
import { DATASET_FORMAT_VERSION } from './schema';

export interface StateRange {
  state: string;
  first: number;
  count: number;
}

/** A field's vector: the values (integers), dictionary codes or string hashes (see schema.ts). */
export interface ColumnVector {
  field: string;
  encoding: 'value' | 'dict' | 'hash';
  data: Vector;
  /** For 'dict' fields, the value of each code. */
  dict: string[] | null;
}

export type Row = RecordValues;

const PREVIEW_INDEXES = PREVIEW_FIELDS.map((name) => fieldIndex(name));
// parseStoredValues reads them in one pass from the start of a record: they must ascend.
if (PREVIEW_INDEXES.some((v, i) => i > 0 && v <= PREVIEW_INDEXES[i - 1]!)) throw new Error('Preview fields must be in catalog order.');
// Characters of a record the preview reads: its first 20 values are ~100 to 300 characters; a record
// whose preview values run past this (very long names) is read again whole.
const PREVIEW_CHARS = 512;
// Positions one `_pos IN (…)` statement looks up; statements are prepared for sizes 8, 16, … up to it.
const LIST_MAX = 256;

/** What a read returns of each record: the whole stored text, its UTF-8 bytes, or only its start (the preview's). */
type Extract = 'record' | 'bytes' | 'preview';
const EXTRACT_SQL: Record<Extract, string> = {
  record: 'record',
  bytes: 'CAST(record AS BLOB)',
  preview: `substr(record, 1, ${PREVIEW_CHARS})`,
};

export class Dataset {
  readonly records: number;
  readonly meta: Readonly<Record<string, string>>;
  private readonly states: Map<string, StateRange>;
  private readonly columns = new Map<number, ColumnVector>();
  private readonly stmt: Record<string, Statement>;
  private readonly readStatements = new Map<string, Statement>();

  private constructor(
    private readonly db: Db,
    readonly path: string,
  ) {
    const meta = Object.fromEntries((db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]).map(([k, v]) => [k, v]));
    if (meta.format_version !== DATASET_FORMAT_VERSION)
      throw new Error(`Dataset ${path} has format ${meta.format_version ?? 'unknown'}; this build reads format ${DATASET_FORMAT_VERSION}.`);
    this.meta = meta;
    this.records = Number(meta.records);
    this.states = new Map((db.prepare('SELECT state, first, count FROM states').all() as StateRange[]).map((r) => [r.state, r]));
    this.stmt = {
      recordOne: db.prepare('SELECT record FROM records WHERE _pos = ?').pluck(),
      column: db.prepare('SELECT encoding, kind, dict, data FROM columns WHERE name = ?'),
    };
  }

  /** Opens a dataset file read-only; a missing or foreign file is a clear error. */
  static open(path: string): Dataset {
    if (!existsSync(path)) throw new AppError('unavailable', `No dataset file at ${path}.`);
    const db = openSqlite(path, { readonly: true, fileMustExist: true });
    try {
      db.pragma('query_only = ON');
      // A small page cache and no memory map: reads are sequential or a page at a time and the OS
      // page cache serves repeats, so an export of a whole state keeps a flat, small footprint.
      db.pragma('cache_size = -16384');
      db.pragma('mmap_size = 0');
      return new Dataset(db, path);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  close(): void {
    this.db.close();
  }

  stateRange(state: string): StateRange {
    return this.states.get(state) ?? { state, first: 0, count: 0 };
  }

  stateCounts(): StateRange[] {
    return [...this.states.values()];
  }

  /** The vector of a filterable field, loaded on first use and kept. */
  column(index: number): ColumnVector {
    let vector = this.columns.get(index);
    if (!vector) {
      const field = FIELDS[index]!.name;
      const row = this.stmt.column!.get(field) as
        { encoding: ColumnVector['encoding']; kind: VectorKind; dict: string | null; data: Buffer } | undefined;
      if (!row) throw new Error(`Dataset has no vector for ${field}`);
      vector = {
        field,
        encoding: row.encoding,
        data: blobToVector(row.kind, row.data),
        dict: row.dict === null ? null : (JSON.parse(row.dict) as string[]),
      };
      this.columns.set(index, vector);
    }
    return vector;
  }

  /** The stored JSON text of each record at ascending positions, in order. */
  recordTexts(positions: ArrayLike<number>): string[] {
    return this.read(positions, 'record') as string[];
  }

  /** The stored JSON text of each record as UTF-8 bytes (no decoding), at ascending positions, in order. */
  recordBytes(positions: ArrayLike<number>): Buffer[] {
    return this.read(positions, 'bytes') as Buffer[];
  }

  /**
   * One read per page, never one per record: a contiguous run is one range scan, anything else
   * `_pos IN (…)` statements of up to LIST_MAX positions: each statement is a read transaction of
   * its own (a lock and a check of the file header), the main cost of reading a page record by
   * record (README, "HTTP, what changed").
   */
  private read(positions: ArrayLike<number>, extract: Extract): Array<string | Buffer> {
    const n = positions.length;
    if (n === 0) return [];
    const first = positions[0]!;
    if (positions[n - 1]! - first + 1 === n) {
      const rows = this.statement(extract, 'range').all(first, first + n) as Array<string | Buffer>;
      if (rows.length !== n) throw new Error(`Dataset ${this.path} is missing records at positions ${first}..${first + n - 1}.`);
      return rows;
    }
    const out: Array<string | Buffer> = [];
    for (let from = 0; from < n; from += LIST_MAX) {
      const to = Math.min(n, from + LIST_MAX);
      // Padded to the statement's size with the last position: IN ignores the repeats.
      const size = Math.max(8, 2 ** Math.ceil(Math.log2(to - from)));
      const args: number[] = new Array(size);
      for (let k = 0; k < size; k++) args[k] = positions[Math.min(from + k, to - 1)]!;
      const rows = this.statement(extract, size).all(...args) as Array<string | Buffer>;
      if (rows.length !== to - from)
        throw new Error(`Dataset ${this.path} is missing records at positions ${positions[from]}..${positions[to - 1]}.`);
      for (const row of rows) out.push(row);
    }
    return out;
  }

  /** A range read (`_pos` from ? to before ?) or an IN-list read of `size` positions, prepared once. */
  private statement(extract: Extract, size: number | 'range'): Statement {
    const key = `${extract}:${size}`;
    let stmt = this.readStatements.get(key);
    if (!stmt) {
      // Both walk the rowid in ascending order, the order the positions were given in.
      const where = size === 'range' ? '_pos >= ? AND _pos < ?' : `_pos IN (${new Array(size).fill('?').join(',')})`;
      stmt = this.db.prepare(`SELECT ${EXTRACT_SQL[extract]} FROM records WHERE ${where} ORDER BY _pos`).pluck();
      this.readStatements.set(key, stmt);
    }
    return stmt;
  }

  /** Full records (values in catalog order) at ascending positions. */
  fullRows(positions: ArrayLike<number>): Row[] {
    return this.recordTexts(positions).map((text) => JSON.parse(text) as Row);
  }

  /**
   * Some fields (catalog indexes, ascending) of every record in [first, first + count), in position
   * order, read a chunk at a time: what list controls match on (households, suppression lists).
   */
  *rangeValues(first: number, count: number, indexes: readonly number[]): Generator<RecordValues> {
    const CHUNK = 16_384;
    for (let from = first, end = first + count; from < end; from += CHUNK) {
      const n = Math.min(CHUNK, end - from);
      // Most wanted fields sit in a record's first characters: read those, and a whole record only when they do not reach.
      const starts = this.statement('preview', 'range').all(from, from + n) as string[];
      if (starts.length !== n) throw new Error(`Dataset ${this.path} is missing records at positions ${from}..${from + n - 1}.`);
      for (let k = 0; k < n; k++) {
        const values = parseStoredValues(starts[k]!, indexes) ?? parseStoredValues(this.stmt.recordOne!.get(from + k) as string, indexes);
        if (!values) throw new Error(`Dataset ${this.path} holds a malformed record at position ${from + k}.`);
        yield values;
      }
    }
  }

  /** The preview fields (PID, FNAME, LNAME, CITY, STATE) of records at ascending positions. */
  previewRows(positions: ArrayLike<number>): Row[] {
    const starts = this.read(positions, 'preview') as string[];
    return starts.map((start, k) => {
      return (
        parseStoredValues(start, PREVIEW_INDEXES) ?? parseStoredValues(this.stmt.recordOne!.get(positions[k]) as string, PREVIEW_INDEXES)!
      );
    });
  }
}
