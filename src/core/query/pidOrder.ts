// Selections of a file whose states are stored in household order (dataset/format/pidRanks.ts): the API
// pages in PID order, so a selection lists positions in the order of their PIDs, found from the
// state's PID order (rank to offset) without reading a record. An export reads in storage order
// instead: a page of PID order is scattered over the whole state's blocks, storage order reads each
// block once (docs/dataset-format.md, "Record order").
import type { StateOrder } from '../dataset/format/pidRanks';
import { ListSelection, type Selection } from './selection';

/** A whole state in PID order: page k is the state's k-th lowest PID's position. */
export class OrderedRangeSelection implements Selection {
  constructor(
    private readonly first: number,
    private readonly order: Uint32Array,
  ) {}

  get total(): number {
    return this.order.length;
  }

  /** The order is the engine's kept array (its own budget), not the selection cache's. */
  readonly bytes = 0;

  page(skip: number, limit: number): ArrayLike<number> {
    const from = Math.min(skip, this.total);
    const part = this.order.subarray(from, Math.min(skip + limit, this.total));
    const out = new Uint32Array(part.length);
    for (let k = 0; k < part.length; k++) out[k] = this.first + part[k]!;
    return out;
  }
}

/** Sets the bit of each of the first `n` positions' offset from `first`. */
function mark(bits: Uint8Array, positions: ArrayLike<number>, n: number, first: number): void {
  for (let k = 0; k < n; k++) {
    const offset = positions[k]! - first;
    bits[offset >>> 3]! |= 1 << (offset & 7);
  }
}

/** Set bits of a 32-bit word. */
function bitCount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Words of a rank set between two of its running counts. */
const WORDS_PER_COUNT = 64;

/**
 * A filtered audience of a state stored by household: a bit a PID rank, set for each match. A
 * page reads only its own bits (the running count every 64 words finds the first), where listing
 * every match in PID order first cost 2.3 ms for 75,000 matches in California at 10M (median;
 * its two fresh arrays made the slow tail, 8-12 ms). The set is 1 bit a person of the state, so
 * it is kept for audiences of more than 1 in 32 of the state; a smaller one is listed
 * (orderedSelection).
 */
export class RankSetSelection implements Selection {
  /** Set bits before word c * WORDS_PER_COUNT. */
  private readonly before: Uint32Array;

  constructor(
    private readonly first: number,
    private readonly words: Int32Array,
    readonly total: number,
    private readonly order: Uint32Array,
  ) {
    this.before = new Uint32Array(Math.ceil(words.length / WORDS_PER_COUNT));
    let count = 0;
    for (let w = 0; w < words.length; w++) {
      if (w % WORDS_PER_COUNT === 0) this.before[w / WORDS_PER_COUNT] = count;
      count += bitCount(words[w]!);
    }
  }

  /** Marks the first `n` of `positions` (each once, all in the state at `first`) by their PID rank. */
  static of(positions: ArrayLike<number>, n: number, first: number, state: StateOrder): RankSetSelection {
    const words = new Int32Array((state.order.length + 31) >>> 5);
    const { ranks } = state;
    for (let k = 0; k < n; k++) {
      const r = ranks[positions[k]! - first]!;
      words[r >>> 5]! |= 1 << (r & 31);
    }
    return new RankSetSelection(first, words, n, state.order);
  }

  get bytes(): number {
    return this.words.byteLength + this.before.byteLength;
  }

  page(skip: number, limit: number): Uint32Array {
    const n = Math.max(0, Math.min(limit, this.total - skip));
    const out = new Uint32Array(n);
    if (n === 0) return out;
    // The last running count at or before `skip`, then word by word to the word holding match `skip`.
    let c = 0;
    for (let lo = 0, hi = this.before.length - 1; lo <= hi;) {
      const mid = (lo + hi) >>> 1;
      if (this.before[mid]! <= skip) {
        c = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    let w = c * WORDS_PER_COUNT;
    let seen = this.before[c]!;
    for (let inWord = bitCount(this.words[w]!); seen + inWord <= skip; inWord = bitCount(this.words[w]!)) {
      seen += inWord;
      w++;
    }
    let bits = this.words[w]!;
    for (; seen < skip; seen++) bits &= bits - 1;
    for (let j = 0; j < n;) {
      while (bits === 0) bits = this.words[++w]!;
      const lowest = bits & -bits;
      out[j++] = this.first + this.order[(w << 5) + 31 - Math.clz32(lowest)]!;
      bits ^= lowest;
    }
    return out;
  }
}

/**
 * The selection of the first `n` of `positions` (each once, all in the state at `first`) of a state
 * stored by household: a rank set, or the matches listed in PID order when the list is smaller.
 */
export function orderedSelection(positions: ArrayLike<number>, n: number, first: number, state: StateOrder): Selection {
  const set = RankSetSelection.of(positions, n, first, state);
  return n * 4 <= set.bytes ? new ListSelection(set.page(0, n)) : set;
}

/**
 * A selection's positions in storage order (ascending), `size` at a time: a bit a person of the state
 * held, not a copy of the list. A walked audience has its bits already (Selection.stateMarks): an
 * export of it pages through no order.
 */
export function* ascendingBatches(selection: Selection, first: number, count: number, size: number): Generator<Uint32Array> {
  const bits = stateMarksOf(selection, first, count);
  let batch = new Uint32Array(Math.min(size, selection.total));
  let filled = 0;
  for (let o = 0; o < bits.length; o++) {
    for (let byte = bits[o]!; byte !== 0; byte &= byte - 1) {
      batch[filled++] = first + o * 8 + (31 - Math.clz32(byte & -byte));
      if (filled === batch.length) {
        yield batch;
        batch = new Uint32Array(batch.length);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield batch.subarray(0, filled);
}

/**
 * A bit an offset of the state at `first` (`count` people), set for each of the selection's matches:
 * the walk's own (Selection.stateMarks, read only), else found by paging through the selection.
 */
export function stateMarksOf(selection: Selection, first: number, count: number): Uint8Array {
  if (selection.stateMarks) return selection.stateMarks;
  const bits = new Uint8Array((count + 7) >>> 3);
  for (let skip = 0; skip < selection.total; skip += 65536) {
    const page = selection.page(skip, 65536);
    mark(bits, page, page.length, first);
  }
  return bits;
}
