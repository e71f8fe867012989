// Format 3's records: one row a record, its JSON text in `records` (no checksums), read only to
// upgrade the file (upgradeDataset.ts; docs/dataset-format.md "Version history").
import type { Db, Statement } from '../../sqlite';
import { datasetDamaged } from '../format/damage';
import { PREVIEW_CHARS, type RecordSource } from '../read/recordSource';

// Positions one `_pos IN (…)` statement looks up; statements are prepared for sizes 8, 16, … up to it.
const LIST_MAX = 256;

type Extract = 'record' | 'bytes' | 'preview';
const EXTRACT_SQL: Record<Extract, string> = {
  record: 'record',
  bytes: 'CAST(record AS BLOB)',
  preview: `substr(record, 1, ${PREVIEW_CHARS})`,
};

export class TextRecords implements RecordSource {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly records: number,
  ) {}

  texts(positions: ArrayLike<number>): string[] {
    return this.read(positions, 'record') as string[];
  }

  bytes(positions: ArrayLike<number>): Uint8Array[] {
    return this.read(positions, 'bytes') as Buffer[];
  }

  starts(positions: ArrayLike<number>): string[] {
    return this.read(positions, 'preview') as string[];
  }

  *verifySteps(): Generator<void, void, void> {
    // No checksums in format 3: SQLite's own checks of the pages, a slice at a time.
    const count = this.db.prepare('SELECT count(*) FROM records WHERE _pos >= ? AND _pos < ?').pluck();
    for (let from = 0; from < this.records; from += 4096) {
      const n = Math.min(4096, this.records - from);
      if (count.get(from, from + n) !== n) throw datasetDamaged(this.path, `records ${from} to ${from + n - 1} are missing`);
      yield;
    }
  }

  /**
   * One read per page, never one per record: a contiguous run is one range scan, anything else
   * `_pos IN (…)` statements of up to LIST_MAX positions: each statement is a read transaction of
   * its own (a lock and a check of the file header), the main cost of reading a page record by
   * record (measured in docs/performance.md).
   */
  private read(positions: ArrayLike<number>, extract: Extract): Array<string | Buffer> {
    const n = positions.length;
    if (n === 0) return [];
    const first = positions[0]!;
    if (positions[n - 1]! - first + 1 === n) {
      const rows = this.statement(extract, 'range').all(first, first + n) as Array<string | Buffer>;
      if (rows.length !== n) throw datasetDamaged(this.path, `records ${first} to ${first + n - 1} are missing`);
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
      if (rows.length !== to - from) throw datasetDamaged(this.path, `records ${positions[from]} to ${positions[to - 1]} are missing`);
      for (const row of rows) out.push(row);
    }
    return out;
  }

  /** A range read (`_pos` from ? to before ?) or an IN-list read of `size` positions, prepared once. */
  private statement(extract: Extract, size: number | 'range'): Statement {
    const key = `${extract}:${size}`;
    let stmt = this.statements.get(key);
    if (!stmt) {
      // Both walk the rowid in ascending order, the order the positions were given in.
      const where = size === 'range' ? '_pos >= ? AND _pos < ?' : `_pos IN (${new Array(size).fill('?').join(',')})`;
      stmt = this.db.prepare(`SELECT ${EXTRACT_SQL[extract]} FROM records WHERE ${where} ORDER BY _pos`).pluck();
      this.statements.set(key, stmt);
    }
    return stmt;
  }
}
