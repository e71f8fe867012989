// The order of a state's records (docs/dataset-format.md, "Record order"). The API answers in PID
// order, but a file stores a state's households together and by ZIP when its writer can (the
// generator): neighbours then share address, household and place, which takes a third off the
// record blocks and a fifth off the vectors. Such a file keeps each position's PID rank within its
// state (0 = the state's lowest PID), so PID order is found without reading a record; a file in PID
// order keeps none (rank = position - the state's first).
import type { Db, Statement } from '../../sqlite';
import { datasetDamaged } from './damage';
import type { ChunkLayout, VectorHeader } from '../codec/vectorChunks';

/** The meta entry naming the order: PID_ORDER, or RANKED_ORDER (the writer's own, with stored ranks). */
export const RECORD_ORDER_KEY = 'record_order';
export const PID_ORDER = 'pid';
export const RANKED_ORDER = 'ranked';

/** The header a rank chunk's CRC is computed under (its own name: never taken for a vector's chunk). */
const rankHeader = (records: number): VectorHeader => ({ name: 'pid ranks', encoding: 'value', kind: 'u32', length: records, dict: null });

/**
 * Writes each position's rank as records arrive, a chunk at a time, and checks that every state's
 * ranks are 0 .. count-1, each once: a rank repeated or missing would make pages skip or repeat people.
 */
export class PidRankWriter {
  private readonly current: Uint32Array;
  private filled = 0;
  private chunk = 0;
  /** Ranks seen in the current state, a bit each. */
  private seen = new Uint8Array(1024);
  private stateCount = 0;
  private highest = -1;

  constructor(
    private readonly layout: ChunkLayout,
    private readonly put: (chunk: number, crc: number, data: Buffer) => void,
  ) {
    this.current = new Uint32Array(layout.size);
  }

  /** The next position's rank; `newState`: it is the first record of a state. */
  add(rank: number, newState: boolean): void {
    if (newState) this.endState();
    if (!Number.isInteger(rank) || rank < 0 || rank >= 2 ** 32) throw new Error(`A PID rank must be a whole number from 0, got ${rank}.`);
    const byte = rank >>> 3;
    if (byte >= this.seen.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.seen.length * 2));
      grown.set(this.seen);
      this.seen = grown;
    }
    const bit = 1 << (rank & 7);
    if (this.seen[byte]! & bit) throw new Error(`Two records of a state were given PID rank ${rank}.`);
    this.seen[byte]! |= bit;
    this.stateCount++;
    if (rank > this.highest) this.highest = rank;
    this.current[this.filled] = rank;
    if (++this.filled === this.layout.size) this.flush();
  }

  /** Writes the last, partial chunk after checking the last state. */
  finish(): void {
    this.endState();
    if (this.filled > 0) this.flush();
  }

  private endState(): void {
    // Distinct ranks, as many as records, none past the count: exactly 0 .. count-1.
    if (this.highest >= this.stateCount) throw new Error(`A state of ${this.stateCount} records was given PID rank ${this.highest}.`);
    this.seen.fill(0);
    this.stateCount = 0;
    this.highest = -1;
  }

  private flush(): void {
    const { data, crc } = this.layout.encodeValues(rankHeader(0).name, this.chunk, this.current.subarray(0, this.filled));
    this.put(this.chunk, crc, data);
    this.chunk++;
    this.filled = 0;
  }
}

/** A state's order both ways: its positions' PID ranks (offset to rank) and its PID order (rank to offset). */
export class StateOrder {
  constructor(
    readonly ranks: Uint32Array,
    readonly order: Uint32Array,
  ) {}

  get byteLength(): number {
    return this.ranks.byteLength + this.order.byteLength;
  }
}

/** A file's PID ranks, read for a state's range at a time. */
export class PidRankReader {
  private readonly chunkStmt: Statement | null;

  constructor(
    db: Db,
    private readonly path: string,
    private readonly layout: ChunkLayout | null,
    private readonly records: number,
    /** Whether the file says its states are not in PID order (meta record_order). */
    readonly stored: boolean,
  ) {
    if (stored && !layout) throw datasetDamaged(path, 'it stores PID ranks but states no chunk size');
    this.chunkStmt = stored ? db.prepare('SELECT crc, data FROM pid_ranks WHERE chunk = ?') : null;
  }

  /** Each position's rank in [first, first + count) (index 0 for `first`), or null when they are in PID order. */
  ranks(first: number, count: number): Uint32Array | null {
    if (!this.chunkStmt || !this.layout) return null;
    const out = new Uint32Array(count);
    const { from, to } = this.layout.covering(first, count);
    for (let c = from; c < to; c++) {
      const values = this.chunk(c);
      const start = c * this.layout.size;
      const lo = Math.max(first, start);
      const hi = Math.min(first + count, start + values.length);
      out.set(values.subarray(lo - start, hi - start), lo - first);
    }
    return out;
  }

  /**
   * For a state at [first, first + count): its positions' ranks, and the offset (position - first)
   * of its r-th lowest PID at index r; null when it is in PID order. A rank the state cannot have is damage.
   */
  order(first: number, count: number): StateOrder | null {
    const ranks = this.ranks(first, count);
    if (!ranks) return null;
    const order = new Uint32Array(count).fill(0xffffffff);
    for (let k = 0; k < count; k++) {
      const r = ranks[k]!;
      if (r >= count || order[r] !== 0xffffffff)
        throw datasetDamaged(this.path, `its PID ranks are not a permutation of a state's ${count} records`);
      order[r] = k;
    }
    return new StateOrder(ranks, order);
  }

  private chunk(c: number): Uint32Array {
    const stored = this.chunkStmt!.get(c) as { crc: number; data: Uint8Array } | undefined;
    if (!stored) throw datasetDamaged(this.path, `chunk ${c} of its PID ranks is missing`);
    const values = new Uint32Array(this.layout!.values(c, this.records));
    this.layout!.decode(this.path, rankHeader(this.records), c, stored, new Uint8Array(values.buffer));
    return values;
  }
}
