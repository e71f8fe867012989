// The stored rows of many record blocks at once, for BlockRecords (blockRecords.ts): the SQL side of
// reading blocks, apart from the cache and slots they are decompressed into.
import type { Db, Statement } from '../../sqlite';

/** A record block's row as stored: its number, its frame's checksum and the frame. */
export interface StoredBlock {
  block: number;
  crc: number;
  data: Uint8Array;
}

export class StoredBlockRows {
  /** Prepared once each: the range scan, and `IN (…)` lists by their (padded) size. */
  private readonly statements = new Map<number | 'range', Statement>();

  constructor(private readonly db: Db) {}

  /**
   * The stored rows of blocks (ascending): one range scan when they lie close together, else an
   * `IN (…)` list padded to a prepared size. Rows that were not asked for are left out; a block
   * with no row is left for the caller to name.
   */
  of(blocks: readonly number[]): StoredBlock[] {
    const first = blocks[0]!;
    const last = blocks[blocks.length - 1]!;
    if (last - first + 1 <= 2 * blocks.length) {
      const asked = new Set(blocks);
      return (this.statement('range').all(first, last + 1) as StoredBlock[]).filter((r) => asked.has(r.block));
    }
    const size = Math.max(8, 2 ** Math.ceil(Math.log2(blocks.length)));
    const args = new Array<number>(size);
    for (let i = 0; i < size; i++) args[i] = blocks[Math.min(i, blocks.length - 1)]!;
    return this.statement(size).all(...args) as StoredBlock[];
  }

  private statement(size: number | 'range'): Statement {
    let stmt = this.statements.get(size);
    if (!stmt) {
      const where = size === 'range' ? 'block >= ? AND block < ?' : `block IN (${new Array(size).fill('?').join(',')})`;
      stmt = this.db.prepare(`SELECT block, crc, data FROM record_blocks WHERE ${where} ORDER BY block`);
      this.statements.set(size, stmt);
    }
    return stmt;
  }
}
