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
 * it has its matches (a few hundred ranks for a common audience); a page at depth starts at the stretch
 * of ranks that holds its first match, found from the running counts of matches at the stretches'
 * starts, each counted once, from the front or from the back, whichever is nearer.
 */
export class OrderWalkSelection implements Selection {
  /**
   * known[j]: the matches among ranks [0, j * stretch), or -1 while not counted. known[0] is 0 and
   * known[stretches] the audience's total, so the stretches after a page can be counted instead of
   * those before it: the matches before a stretch are the total less those from it on.
   */
  private readonly known: Int32Array;
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
    this.known = new Int32Array(this.stretches + 1).fill(-1);
    this.known[0] = 0;
    this.known[this.stretches] = total;
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
    return this.stateMarks.byteLength + this.known.byteLength;
  }

  page(skip: number, limit: number): Uint32Array {
    const n = Math.max(0, Math.min(limit, this.total - skip));
    const out = new Uint32Array(n);
    if (n === 0) return out;
    this.countAround(skip);
    // The walk goes on from the last stretch known to start at or before the skip-th match and notes
    // each stretch it passes whole, so a page reads only the ranks up to its last match: counting the
    // stretch first (65,536 ranks) made California's first page read and decode that much of its
    // order for 25 people found in the first few hundred ranks.
    const known = this.known;
    let j = this.knownAtOrBefore(skip);
    let seen = known[j]!;
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
      if (passed) known[j + 1] = seen;
    }
    return out;
  }

  /** The last stretch whose start is counted and has at most `skip` matches before it: the skip-th match is in it or after. */
  private knownAtOrBefore(skip: number): number {
    const known = this.known;
    for (let j = this.stretches; j > 0; j--) if (known[j]! !== -1 && known[j]! <= skip) return j;
    return 0;
  }

  /**
   * Before a walk to the skip-th match: when the stretches between the counted ones around it are
   * many, counts at once (two cores) those on the nearer side of the stretch the match is expected
   * in, taking matches as spread evenly over the ranks (PIDs bear no relation to the filters), so the
   * walk reads only that stretch. From the back, a page in the second half of a fresh audience counts
   * less than half the state: California at 30M has ~55 stretches, each a chunk of the stored order
   * (~0.7 ms) until the warm-up keeps the whole order. An estimate off by one leaves the walk a
   * stretch more to read, or counts one a later page would have.
   */
  private countAround(skip: number): void {
    if (!this.counting) return;
    const known = this.known;
    // A second round when the first counted on the wrong side of the match (the estimate was a stretch off).
    for (let round = 0; round < 2; round++) {
      const a = this.knownAtOrBefore(skip);
      let b = a + 1;
      while (known[b] === -1) b++;
      const expected = Math.max(a, Math.min(b - 1, Math.floor((skip * this.count) / this.total / this.stretch)));
      if (expected - a <= b - expected) {
        // Stretch a is the walk's own to read anyway, and one more in turn costs what counting it would.
        if (expected - a < 2) return;
        const counts = this.counting(this.stateMarks, this.stretch, a, expected);
        if (!counts) return;
        for (let k = 0; k < counts.length; k++) known[a + k + 1] = known[a + k]! + counts[k]!;
      } else {
        const counts = this.counting(this.stateMarks, this.stretch, expected, b);
        if (!counts) return;
        for (let k = counts.length - 1; k >= 0; k--) known[expected + k] = known[expected + k + 1]! - counts[k]!;
      }
    }
  }
}
