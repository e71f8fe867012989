// Paging in PID order through the order a ranked file stores (dataset/format/pidRanks.ts, table
// pid_order): a page at rank r reads the chunk that holds r, so the first page of a state needs one
// chunk of its order, where building the order from the state's ranks reads and inverts all of them
// (docs/performance.md, "What a user meets first"). When the engine keeps a state's whole order
// (the warm-up's, pidOrderWarmup.ts) the slices come from it instead.
import type { StateRange } from '../dataset/format/datasetTypes';
import type { StateOrder } from '../dataset/format/pidRanks';
import type { Selection } from './selection';
import { countMarked } from './stretchCountJob';
import type { StretchCounter } from './stretchCounter';

/** Offsets from the state's first position of its PID ranks [from, to): a view, read only, valid until the next call. */
export type OrderSlice = (from: number, to: number) => Uint32Array;

/** Decoded chunks kept for all states together (the last used): a page at depth reads one or two. */
const KEPT_CHUNKS = 16;

export interface StoredOrderFile {
  readonly pidOrderChunkSize: number;
  /** Chunk `c`, decoded into the start of `into` when given and large enough. */
  pidOrderChunk(c: number, into?: Uint32Array): Uint32Array;
}

/** A file's stored PID orders, a decoded chunk at a time. */
export class StoredPidOrder {
  private readonly decoded = new Map<number, Uint32Array>();
  /**
   * Chunk-sized memory no kept chunk holds: dropped chunks' and what writeAhead() made ready. A chunk
   * decoded into it does not fault in 256 KB of fresh pages (~0.8 ms on the slower VM of docs/performance.md).
   */
  private readonly spare: Uint32Array[] = [];
  /**
   * Where a two-core count decodes this thread's chunks (counted()): they are not kept, so a deep
   * page's count (~25 chunks in California at 30M) does not drop the kept chunks of every state's first page.
   */
  private scratch: Uint32Array | null = null;

  constructor(
    private readonly file: StoredOrderFile,
    /** The state's whole order when the engine keeps it, else null. */
    private readonly whole: (state: string) => StateOrder | null,
    /** Counts many stretches of a walk at once on two cores; null: walks count them in turn. */
    private readonly counter: StretchCounter | null = null,
  ) {}

  /**
   * The serving start-up's: writes ahead the memory of as many chunks as are kept (zeros, so its
   * pages are mapped), and decodes the chunks a first page of each of `firstPagesOf` reads (its
   * first `slice` ranks; the largest states first, into at most half the chunks kept): ~0.7 ms a
   * chunk of a fresh serve's first page otherwise (a 211 KB row read, checked and decompressed at 30M).
   */
  writeAhead(firstPagesOf: readonly StateRange[] = [], slice = WALK_SLICE): void {
    const size = this.file.pidOrderChunkSize;
    while (this.spare.length + this.decoded.size < KEPT_CHUNKS) this.spare.push(new Uint32Array(size).fill(0));
    this.scratch ??= new Uint32Array(size).fill(0);
    for (const range of firstPagesOf) {
      if (range.count === 0) continue;
      const last = Math.floor((range.first + Math.min(range.count, slice) - 1) / size);
      for (let c = Math.floor(range.first / size); c <= last; c++) {
        if (this.decoded.size >= KEPT_CHUNKS / 2) return;
        try {
          this.chunk(c);
        } catch {
          // A chunk that does not read is left to the first page that needs it, which says so.
          return;
        }
      }
    }
  }

  /** The order of the state at `range`, sliced. */
  of(range: StateRange): OrderSlice {
    return (from, to) => this.slice(range, from, to);
  }

  /**
   * How a walk of the state at `range` counts many stretches at once, on two cores: from the state's
   * whole order when the engine keeps it, else through the stored order's chunks.
   */
  counting(range: StateRange): StretchCounting | null {
    const counter = this.counter;
    if (!counter) return null;
    return (marks, stretch, from, to) => {
      const kept = this.whole(range.state);
      return kept
        ? counter.countKept(kept.order, marks, stretch, from, to)
        : counter.count(range, marks, stretch, from, to, (c) => this.counted(c));
    };
  }

  private slice(range: StateRange, from: number, to: number): Uint32Array {
    const end = Math.min(to, range.count);
    if (from >= end) return new Uint32Array(0);
    const kept = this.whole(range.state);
    if (kept) return kept.order.subarray(from, end);
    const size = this.file.pidOrderChunkSize;
    const lo = range.first + from;
    const hi = range.first + end;
    const firstChunk = Math.floor(lo / size);
    const lastChunk = Math.floor((hi - 1) / size);
    if (firstChunk === lastChunk) return this.chunk(firstChunk).subarray(lo - firstChunk * size, hi - firstChunk * size);
    const out = new Uint32Array(hi - lo);
    for (let c = firstChunk; c <= lastChunk; c++) {
      const values = this.chunk(c);
      const a = Math.max(lo, c * size);
      const b = Math.min(hi, c * size + values.length);
      out.set(values.subarray(a - c * size, b - c * size), a - lo);
    }
    return out;
  }

  /** Chunk `c` for a count that keeps nothing of it: a kept one when it is, else decoded into the scratch, valid until the next call. */
  private counted(c: number): Uint32Array {
    const hit = this.decoded.get(c);
    if (hit) return hit;
    this.scratch ??= new Uint32Array(this.file.pidOrderChunkSize);
    return this.file.pidOrderChunk(c, this.scratch);
  }

  private chunk(c: number): Uint32Array {
    const hit = this.decoded.get(c);
    if (hit) {
      // Most recently used last: the first key is the one to drop.
      this.decoded.delete(c);
      this.decoded.set(c, hit);
      return hit;
    }
    if (this.decoded.size >= KEPT_CHUNKS) {
      const [oldest, dropped] = this.decoded.entries().next().value!;
      this.decoded.delete(oldest);
      // Its slices were valid until this call (OrderSlice): its memory takes this chunk.
      if (dropped.buffer.byteLength === this.file.pidOrderChunkSize * 4) this.spare.push(new Uint32Array(dropped.buffer));
    }
    const values = this.file.pidOrderChunk(c, this.spare.pop());
    this.decoded.set(c, values);
    return values;
  }
}

/** A whole state in PID order through its stored order: page k is the state's k-th lowest PID's position. */
export class StoredRangeSelection implements Selection {
  readonly bytes = 0;

  constructor(
    private readonly first: number,
    readonly total: number,
    private readonly order: OrderSlice,
  ) {}

  page(skip: number, limit: number): Uint32Array {
    const offsets = this.order(Math.min(skip, this.total), Math.min(skip + limit, this.total));
    const out = new Uint32Array(offsets.length);
    for (let k = 0; k < offsets.length; k++) out[k] = this.first + offsets[k]!;
    return out;
  }
}

/** Ranks whose matches are counted at once. */
const STRETCH = 65536;
/** Ranks a walk reads of the order at a time. */
const WALK_SLICE = 4096;

/**
 * Counts the matches (a bit a person in `marks`) in the whole stretches [from, to) of `stretch` ranks
 * at once, on two cores (stretchCounter.ts); null when it cannot now, and the walk counts them in turn.
 */
export type StretchCounting = (marks: Uint8Array, stretch: number, from: number, to: number) => Int32Array | null;

/** How a walk goes: `stretch`, ranks counted at once; `slice`, ranks read of the order at a time (tests use few); `counting`, of many stretches at once. */
export interface WalkOptions {
  stretch?: number;
  slice?: number;
  counting?: StretchCounting | null;
}

/**
 * A filtered audience of a state paged through its stored order: a bit a person of the state for
 * each match, and the state's ranks walked in order testing it. The first page reads the order until
 * it has its matches (a few hundred ranks for a common audience); a page at depth finds its stretch of
 * ranks from the running counts of the stretches before it, counted once, as deep as pages have gone.
 */
export class OrderWalkSelection implements Selection {
  /** before[j]: matches among ranks [0, j * stretch), for the stretches counted so far. */
  private readonly before: number[] = [0];
  private readonly stretches: number;

  private constructor(
    private readonly first: number,
    readonly stateMarks: Uint8Array,
    readonly total: number,
    private readonly count: number,
    private readonly order: OrderSlice,
    private readonly stretch: number,
    private readonly slice: number,
    private readonly counting: StretchCounting | null,
  ) {
    this.stretches = Math.ceil(count / stretch);
  }

  /** The first `n` of `positions` (each once, all in the state at `first` of `count` people). */
  static of(
    positions: ArrayLike<number>,
    n: number,
    first: number,
    count: number,
    order: OrderSlice,
    walk: WalkOptions = {},
  ): OrderWalkSelection {
    // In shared memory when the walk may count its stretches on two cores (stretchCounter.ts).
    const bytes = (count + 7) >>> 3;
    const marks = walk.counting ? new Uint8Array(new SharedArrayBuffer(bytes)) : new Uint8Array(bytes);
    for (let k = 0; k < n; k++) {
      const offset = positions[k]! - first;
      marks[offset >>> 3]! |= 1 << (offset & 7);
    }
    return OrderWalkSelection.ofMarks(marks, n, first, count, order, walk);
  }

  /** As of(), from a bit a person of the state already set for its `n` matches (markKernels.ts), kept as it is. */
  static ofMarks(
    marks: Uint8Array,
    n: number,
    first: number,
    count: number,
    order: OrderSlice,
    walk: WalkOptions = {},
  ): OrderWalkSelection {
    return new OrderWalkSelection(first, marks, n, count, order, walk.stretch ?? STRETCH, walk.slice ?? WALK_SLICE, walk.counting ?? null);
  }

  get bytes(): number {
    return this.stateMarks.byteLength + this.before.length * 8;
  }

  page(skip: number, limit: number): Uint32Array {
    const n = Math.max(0, Math.min(limit, this.total - skip));
    const out = new Uint32Array(n);
    if (n === 0) return out;
    const before = this.before;
    if (skip >= before[before.length - 1]!) this.countAhead(skip);
    // The last stretch known to start at or before the skip-th match. The walk goes on from there
    // and notes each stretch it passes whole, so a page reads only the ranks up to its last match:
    // counting the stretch first (65,536 ranks) made California's first page read and decode that
    // much of its order for 25 people found in the first few hundred ranks.
    let j = 0;
    for (let lo = 0, hi = before.length - 1; lo <= hi;) {
      const mid = (lo + hi) >>> 1;
      if (before[mid]! <= skip) {
        j = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    let seen = before[j]!;
    let filled = 0;
    for (; filled < n && j < this.stretches; j++) {
      const end = Math.min((j + 1) * this.stretch, this.count);
      let passed = true;
      // A slice at a time, so the order is read (a chunk of 65,536 positions at most) only as far as the page goes.
      for (let from = j * this.stretch; from < end; from += this.slice) {
        const offsets = this.order(from, Math.min(end, from + this.slice));
        // Still short of the skip-th match: a slice passed whole is counted by the tight loop.
        if (filled === 0) {
          const matches = countMarked(offsets, 0, offsets.length, this.stateMarks);
          if (seen + matches <= skip) {
            seen += matches;
            continue;
          }
        }
        let k = 0;
        for (; k < offsets.length && filled < n; k++) {
          const offset = offsets[k]!;
          if (!(this.stateMarks[offset >>> 3]! & (1 << (offset & 7)))) continue;
          if (seen++ < skip) continue;
          out[filled++] = this.first + offset;
        }
        // Full before the stretch's last rank: the matches before the next stretch are not known yet.
        if (k < offsets.length || (filled === n && from + this.slice < end)) {
          passed = false;
          break;
        }
      }
      if (passed && j + 1 === before.length) before.push(seen);
    }
    return out;
  }

  /**
   * Before a walk to the skip-th match from the last stretch counted: counts at once (two cores) the
   * stretches up to the one the match is expected in, taking matches as spread evenly over the ranks
   * (PIDs bear no relation to the filters), so the walk reads only the last. An estimate too far
   * counts a few stretches a later page would have; too near leaves the walk a few to count in turn.
   */
  private countAhead(skip: number): void {
    if (!this.counting) return;
    const from = this.before.length - 1;
    const expected = Math.min(this.stretches, Math.floor((skip * this.count) / this.total / this.stretch));
    // One stretch is the walk's own to read anyway.
    if (expected - from < 2) return;
    const counts = this.counting(this.stateMarks, this.stretch, from, expected);
    if (!counts) return;
    for (let k = 0; k < counts.length; k++) this.before.push(this.before[this.before.length - 1]! + counts[k]!);
  }
}
