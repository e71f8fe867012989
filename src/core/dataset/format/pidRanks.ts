// The order of a state's records (docs/dataset-format.md, "Record order"). The API answers in PID
// order, but a file stores a state's households together and by ZIP when its writer can (the
// generator): neighbours then share address, household and place, which takes a third off the
// record blocks and a fifth off the vectors. Such a file keeps each position's PID rank within its
// state (0 = the state's lowest PID), so PID order is found without reading a record; a file in PID
// order keeps none (rank = position - the state's first).
import type { Db, Statement } from '../../sqlite';
import { datasetDamaged } from './damage';
import type { ChunkLayout, VectorHeader } from '../codec/vectorChunks';
import type { PieceSource } from '../read/pieceFetch';

/** The meta entry naming the order: PID_ORDER, or RANKED_ORDER (the writer's own, with stored ranks). */
export const RECORD_ORDER_KEY = 'record_order';
export const PID_ORDER = 'pid';
export const RANKED_ORDER = 'ranked';

/** The header a rank chunk's CRC is computed under (its own name: never taken for a vector's chunk). */
const rankHeader = (records: number): VectorHeader => ({ name: 'pid ranks', encoding: 'value', kind: 'u32', length: records, dict: null });

/** The meta entry of a ranked file whose states' PID orders are stored too (table pid_order): STORED_PID_ORDER. */
export const PID_ORDER_KEY = 'pid_order';
export const STORED_PID_ORDER = 'stored';

/** The header a stored order chunk's CRC is computed under. */
const orderHeader = (records: number): VectorHeader => ({ name: 'pid order', encoding: 'value', kind: 'u32', length: records, dict: null });

/** u32 values laid out by position (value k of the stream at position k), written a chunk at a time. */
class ChunkStream {
  private readonly current: Uint32Array;
  private filled = 0;
  private chunk = 0;

  constructor(
    private readonly layout: ChunkLayout,
    private readonly name: string,
    private readonly put: (chunk: number, crc: number, data: Buffer) => void,
  ) {
    this.current = new Uint32Array(layout.size);
  }

  push(value: number): void {
    this.current[this.filled] = value;
    if (++this.filled === this.layout.size) this.flush();
  }

  /** Writes the last, partial chunk. */
  finish(): void {
    if (this.filled > 0) this.flush();
  }

  private flush(): void {
    const { data, crc } = this.layout.encodeValues(this.name, this.chunk, this.current.subarray(0, this.filled));
    this.put(this.chunk, crc, data);
    this.chunk++;
    this.filled = 0;
  }
}

/**
 * Writes each position's rank as records arrive, a chunk at a time, and checks that every state's
 * ranks are 0 .. count-1, each once: a rank repeated or missing would make pages skip or repeat people.
 * At each state's end it also writes the state's PID order (at position first + r, the offset of its
 * r-th lowest PID), so that a page reads the part of the order it needs without the whole state's ranks.
 */
export class PidRankWriter {
  private readonly ranks: ChunkStream;
  private readonly order: ChunkStream;
  /** Ranks seen in the current state, a bit each. */
  private seen = new Uint8Array(1024);
  /** The current state's order so far: at index r, the offset of the record given rank r. */
  private stateOrder = new Uint32Array(8192);
  private stateCount = 0;
  private highest = -1;

  constructor(
    layout: ChunkLayout,
    putRank: (chunk: number, crc: number, data: Buffer) => void,
    putOrder: (chunk: number, crc: number, data: Buffer) => void,
  ) {
    this.ranks = new ChunkStream(layout, rankHeader(0).name, putRank);
    this.order = new ChunkStream(layout, orderHeader(0).name, putOrder);
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
    if (rank >= this.stateOrder.length) {
      const grown = new Uint32Array(Math.max(rank + 1, this.stateOrder.length * 2));
      grown.set(this.stateOrder);
      this.stateOrder = grown;
    }
    this.stateOrder[rank] = this.stateCount++;
    if (rank > this.highest) this.highest = rank;
    this.ranks.push(rank);
  }

  /** Writes the last, partial chunks after checking the last state. */
  finish(): void {
    this.endState();
    this.ranks.finish();
    this.order.finish();
  }

  private endState(): void {
    // Distinct ranks, as many as records, none past the count: exactly 0 .. count-1.
    if (this.highest >= this.stateCount) throw new Error(`A state of ${this.stateCount} records was given PID rank ${this.highest}.`);
    for (let r = 0; r < this.stateCount; r++) this.order.push(this.stateOrder[r]!);
    this.seen.fill(0);
    this.stateCount = 0;
    this.highest = -1;
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

/**
 * Ranks an order's step inverts: each a write to a random place of the order, a cache miss in a large
 * state (~45 ns here), so ~0.7 ms a step, as long as a chunk's read.
 */
const ORDER_STEP = 16_384;

/** A file's PID ranks, read for a state's range at a time. */
export class PidRankReader {
  private readonly chunkStmt: Statement | null;
  private readonly orderStmt: Statement | null;

  constructor(
    db: Db,
    private readonly path: string,
    private readonly layout: ChunkLayout | null,
    private readonly records: number,
    /** Whether the file says its states are not in PID order (meta record_order). */
    readonly stored: boolean,
    /** Whether the file says it stores its states' PID orders too (meta pid_order; files written before it do not). */
    orderStored = false,
  ) {
    if (stored && !layout) throw datasetDamaged(path, 'it stores PID ranks but states no chunk size');
    if (orderStored && !stored) throw datasetDamaged(path, 'it stores a PID order but its records are in PID order');
    this.chunkStmt = stored ? db.prepare('SELECT crc, data FROM pid_ranks WHERE chunk = ?') : null;
    this.orderStmt = orderStored ? db.prepare('SELECT crc, data FROM pid_order WHERE chunk = ?') : null;
  }

  /** Whether order chunks can be read (orderChunk()). */
  get orderStored(): boolean {
    return this.orderStmt !== null;
  }

  /** The positions a chunk of the stored order covers (the vector chunk size). */
  get chunkSize(): number {
    return this.layout?.size ?? 0;
  }

  /** What another thread needs to read the stored order's chunks as this reader does (read/pieceFetch.ts); null when none is stored. */
  orderSource(identity: string): PieceSource | null {
    if (!this.orderStmt) return null;
    return { kind: 'order', path: this.path, identity, header: orderHeader(this.records), chunkSize: this.layout!.size };
  }

  /** Chunk `c` of the stored PID order: at index k, the value for position c * chunkSize + k (state's rank = position - first). */
  orderChunk(c: number, into?: Uint32Array): Uint32Array {
    return this.read(this.orderStmt!, orderHeader(this.records), 'its stored PID order', c, into);
  }

  /**
   * Checks, a chunk a step, that the stored order of the state at [first, first + order.length) is
   * `order` (built from its ranks); a difference is damage.
   */
  *storedOrderChecks(first: number, order: Uint32Array): Generator<void, void> {
    const size = this.chunkSize;
    const { from, to } = this.layout!.covering(first, order.length);
    for (let c = from; c < to; c++) {
      const values = this.orderChunk(c);
      const lo = Math.max(first, c * size);
      const hi = Math.min(first + order.length, c * size + values.length);
      for (let p = lo; p < hi; p++)
        if (values[p - c * size] !== order[p - first])
          throw datasetDamaged(this.path, `its stored PID order differs from its PID ranks at position ${p}`);
      yield;
    }
  }

  /** Each position's rank in [first, first + count) (index 0 for `first`), or null when they are in PID order. */
  ranks(first: number, count: number): Uint32Array | null {
    if (!this.chunkStmt || !this.layout) return null;
    const out = new Uint32Array(count);
    for (const step of this.rankSteps(first, count, out)) void step;
    return out;
  }

  /**
   * For a state at [first, first + count): its positions' ranks, and the offset (position - first)
   * of its r-th lowest PID at index r; null when it is in PID order. A rank the state cannot have is damage.
   */
  order(first: number, count: number): StateOrder | null {
    const steps = this.orderSteps(first, count);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * order()'s work in steps of ~1 ms or less (a chunk of ranks read, or ORDER_STEP of them inverted),
   * for a thread that builds orders beside requests and waits between steps while one computes
   * (query/pidOrderWorker.ts): California's order at 30M is ~200 ms of work, which in one call ran
   * beside a fresh serve's first requests on two cores.
   */
  *orderSteps(first: number, count: number): Generator<void, StateOrder | null> {
    if (!this.chunkStmt || !this.layout) return null;
    const ranks = new Uint32Array(count);
    yield* this.rankSteps(first, count, ranks);
    // Shared memory: a walk counts its stretches on two cores from the order the engine keeps (query/stretchCounter.ts).
    const order = new Uint32Array(new SharedArrayBuffer(count * 4)).fill(0xffffffff);
    for (let k = 0; k < count;) {
      for (const end = Math.min(count, k + ORDER_STEP); k < end; k++) {
        const r = ranks[k]!;
        if (r >= count || order[r] !== 0xffffffff)
          throw datasetDamaged(this.path, `its PID ranks are not a permutation of a state's ${count} records`);
        order[r] = k;
      }
      yield;
    }
    return new StateOrder(ranks, order);
  }

  /** Reads the ranks of [first, first + count) into `out`, a chunk a step. */
  private *rankSteps(first: number, count: number, out: Uint32Array): Generator<void, void> {
    const layout = this.layout!;
    const { from, to } = layout.covering(first, count);
    for (let c = from; c < to; c++) {
      const values = this.chunk(c);
      const start = c * layout.size;
      const lo = Math.max(first, start);
      const hi = Math.min(first + count, start + values.length);
      out.set(values.subarray(lo - start, hi - start), lo - first);
      yield;
    }
  }

  private chunk(c: number): Uint32Array {
    return this.read(this.chunkStmt!, rankHeader(this.records), 'its PID ranks', c);
  }

  /** Chunk `c` decoded, into the start of `into` when it has room (memory the caller reuses), else into new memory. */
  private read(stmt: Statement, header: VectorHeader, what: string, c: number, into?: Uint32Array): Uint32Array {
    const stored = stmt.get(c) as { crc: number; data: Uint8Array } | undefined;
    if (!stored) throw datasetDamaged(this.path, `chunk ${c} of ${what} is missing`);
    const n = this.layout!.values(c, this.records);
    const values = into && into.length >= n ? into.subarray(0, n) : new Uint32Array(n);
    this.layout!.decode(this.path, header, c, stored, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    return values;
  }
}
