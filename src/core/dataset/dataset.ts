// An open dataset file, read-only: the one place that holds SQL over `records`, `columns` and
// `states`. Everything above it speaks in positions (0-based, in (STATE, PID) order).
import { existsSync } from 'node:fs';
import { AppError } from '../../shared/errors';
import { FIELDS, PREVIEW_FIELDS, fieldIndex } from '../../shared/fields';
import { openSqlite, type Db, type Statement } from '../sqlite';
import { blobToVector, type Vector, type VectorKind } from './columnVector';
import { parseStoredPrefix, type RecordValues } from './recordFormat';
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
const PREVIEW_PREFIX = Math.max(...PREVIEW_INDEXES) + 1;

export class Dataset {
  readonly records: number;
  readonly meta: Readonly<Record<string, string>>;
  private readonly states: Map<string, StateRange>;
  private readonly columns = new Map<number, ColumnVector>();
  private readonly stmt: Record<string, Statement>;

  private constructor(private readonly db: Db, readonly path: string) {
    const meta = Object.fromEntries(
      (db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]).map(([k, v]) => [k, v]),
    );
    if (meta.format_version !== DATASET_FORMAT_VERSION)
      throw new Error(`Dataset ${path} has format ${meta.format_version ?? 'unknown'}; this build reads format ${DATASET_FORMAT_VERSION}.`);
    this.meta = meta;
    this.records = Number(meta.records);
    this.states = new Map(
      (db.prepare('SELECT state, first, count FROM states').all() as StateRange[]).map((r) => [r.state, r]),
    );
    this.stmt = {
      recordOne: db.prepare('SELECT record FROM records WHERE _pos = ?').pluck(),
      recordRange: db.prepare('SELECT _pos, record FROM records WHERE _pos >= ? AND _pos < ?').raw(),
      column: db.prepare('SELECT encoding, kind, dict, data FROM columns WHERE name = ?'),
    };
  }

  /** Opens a dataset file read-only; a missing or foreign file is a clear error. */
  static open(path: string): Dataset {
    if (!existsSync(path)) throw new AppError('unavailable', `No dataset file at ${path}.`);
    const db = openSqlite(path, { readonly: true, fileMustExist: true });
    try {
      db.pragma('query_only = ON');
      // A small page cache and no memory map: reads are sequential or a page at a time, the OS page
      // cache serves repeats, and an export of a whole state then peaks near 220 MB instead of 700.
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
      const row = this.stmt.column!.get(field) as { encoding: ColumnVector['encoding']; kind: VectorKind; dict: string | null; data: Buffer } | undefined;
      if (!row) throw new Error(`Dataset has no vector for ${field}`);
      vector = { field, encoding: row.encoding, data: blobToVector(row.kind, row.data), dict: row.dict === null ? null : (JSON.parse(row.dict) as string[]) };
      this.columns.set(index, vector);
    }
    return vector;
  }

  columnByName(name: string): ColumnVector {
    return this.column(fieldIndex(name));
  }

  /**
   * The stored JSON text of each record at ascending positions, in order. Dense runs are read with
   * one range scan (skipping positions not asked for), sparse ones point by point.
   */
  recordTexts(positions: ArrayLike<number>): string[] {
    const n = positions.length;
    if (n === 0) return [];
    const first = positions[0]!;
    const last = positions[n - 1]!;
    if (last - first + 1 > n * 4) {
      const out: string[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = this.stmt.recordOne!.get(positions[i]) as string;
      return out;
    }
    const out: string[] = [];
    let k = 0;
    for (const [pos, text] of this.stmt.recordRange!.iterate(first, last + 1) as Iterable<[number, string]>) {
      if (pos === positions[k]) {
        out.push(text);
        k++;
      }
    }
    return out;
  }

  /** Full records (values in catalog order) at ascending positions. */
  fullRows(positions: ArrayLike<number>): Row[] {
    return this.recordTexts(positions).map((text) => JSON.parse(text) as Row);
  }

  /** The preview fields (PID, FNAME, LNAME, CITY, STATE) of records at ascending positions. */
  previewRows(positions: ArrayLike<number>): Row[] {
    return this.recordTexts(positions).map((text) => {
      const r = parseStoredPrefix(text, PREVIEW_PREFIX);
      return PREVIEW_INDEXES.map((i) => r[i]!);
    });
  }
}
