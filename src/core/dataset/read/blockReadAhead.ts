// Reads of record blocks whose only purpose is to bring the file's pages into the OS cache before a
// request needs them (query/fileReadAhead.ts): nothing is decompressed or kept. SQLite finds a block
// by its number through the pages of a B-tree above it (with 2 KB pages, three levels at 30M blocks'
// worth of rows), then reads the row's own pages; on a file the OS has not cached, each of those is a
// read from the disk.
import type { Db, Statement } from '../../sqlite';

export class BlockReadAhead {
  private readonly row: Statement;
  private readonly key: Statement;

  constructor(
    db: Db,
    private readonly records: number,
    private readonly perBlock: number,
  ) {
    this.row = db.prepare('SELECT data FROM record_blocks WHERE block = ?').pluck();
    // The number alone: SQLite answers it from the B-tree's leaf, without the row's overflow pages.
    this.key = db.prepare('SELECT block FROM record_blocks WHERE block = ?').pluck();
  }

  /** How many blocks the file has. */
  get blockCount(): number {
    return Math.ceil(this.records / this.perBlock);
  }

  /** The blocks that hold `positions`, ascending, each once. */
  blocksOf(positions: Iterable<number>): number[] {
    const blocks = new Set<number>();
    for (const p of positions) if (p >= 0 && p < this.records) blocks.add(Math.floor(p / this.perBlock));
    return [...blocks].sort((a, b) => a - b);
  }

  /** Reads block `block`'s whole stored row (its B-tree path, its leaf and overflow pages) and drops it. */
  readRow(block: number): void {
    this.row.get(block);
  }

  /** Looks block `block` up by its number alone: the B-tree pages above its row and its leaf, not the row's overflow pages. */
  lookUp(block: number): void {
    this.key.get(block);
  }
}
