// Which way a state's selections page in PID order (docs/dataset-format.md, "Record order"): a file
// in PID order pages by position; a ranked file through the state's whole order when the engine
// keeps it (built by the warm-up, pidOrderWarmup.ts), else through the order the file stores, a
// chunk at a time (storedPidOrder.ts), so no request waits for a whole state's order; a ranked file
// written before orders were stored builds the whole order on the state's first page.
import type { LruCache } from '../cache/lruCache';
import type { StateRange } from '../dataset/format/datasetTypes';
import type { StateOrder } from '../dataset/format/pidRanks';
import type { Dataset } from '../dataset/read/dataset';
import { keptPerState, type Derived } from './derivedArrays';
import { markedPositions } from './markKernels';
import { OrderedRangeSelection, orderedSelection } from './pidOrder';
import { pidOrderKey } from './pidOrderWarmup';
import { ListSelection, RangeSelection, type Selection } from './selection';
import { OrderWalkSelection, StoredPidOrder, StoredRangeSelection, type WalkOptions } from './storedPidOrder';
import { StretchCounter, type StretchCountWorker } from './stretchCounter';

/** An audience with fewer than 1 in RARE people of its state is listed rather than walked, when it can be. */
const RARE = 32;

export class PidPaging {
  private readonly stored: StoredPidOrder | null;
  /** Counts a walk's stretches on two cores (stretchCounter.ts); null without a worker or a stored order. */
  readonly counter: StretchCounter | null;

  constructor(
    private readonly dataset: Dataset,
    private readonly derived: LruCache<Derived>,
    /** The scan worker, when the engine has one. */
    worker: StretchCountWorker | null = null,
    /** Ranks a walk counts at once (EngineOptions.walkStretch); undefined: the walk's own. */
    private readonly stretch?: number,
  ) {
    const source = dataset.pidOrderSource;
    this.counter = worker && source?.kind === 'order' ? new StretchCounter(source, worker) : null;
    this.stored =
      !dataset.inPidOrder && dataset.storesPidOrder ? new StoredPidOrder(dataset, (state) => this.kept(state), this.counter) : null;
  }

  /** Writes ahead the memory the stored order's chunks are decoded into, and the largest states' first chunks (StoredPidOrder.writeAhead). */
  writeAhead(): void {
    this.stored?.writeAhead([...this.dataset.stateCounts()].sort((a, b) => b.count - a.count));
  }

  /** A whole state, in PID order. */
  whole(range: StateRange): Selection {
    if (this.dataset.inPidOrder) return new RangeSelection(range.first, range.count);
    const kept = this.kept(range.state);
    if (kept) return new OrderedRangeSelection(range.first, kept.order);
    if (this.stored) return new StoredRangeSelection(range.first, range.count, this.stored.of(range));
    return new OrderedRangeSelection(range.first, this.built(range).order);
  }

  /** The first `n` of `positions` (ascending, each once, all in the state at `range`), in PID order; copies what it keeps. */
  listed(positions: Uint32Array, n: number, range: StateRange): Selection {
    if (this.dataset.inPidOrder) return new ListSelection(positions.slice(0, n));
    const kept = this.kept(range.state);
    // A walk through the order costs its first page a bit a person to mark and the ranks up to its
    // matches, where a rank set sums every word of the state first; but an audience rarer than 1 in
    // 32 would have its pages walk far, and is listed in PID order from the kept ranks instead.
    if (this.stored && !(kept && n * RARE < range.count))
      return OrderWalkSelection.of(positions, n, range.first, range.count, this.stored.of(range), this.walk(range));
    return orderedSelection(positions, n, range.first, kept ?? this.built(range));
  }

  /**
   * Whether a filtered audience is best given as a bit a person (marked()): a file that stores its
   * PID orders walks them with those bits, so a list of the matches would only be turned into them.
   */
  get takesMarks(): boolean {
    return this.stored !== null;
  }

  /**
   * A state's `n` matches given as a bit a person (markKernels.ts), in PID order: walked through the
   * stored order, or, when the engine keeps the whole order and the audience is rare, listed.
   */
  marked(marks: Uint8Array, n: number, range: StateRange): Selection {
    const kept = this.kept(range.state);
    if (this.stored && !(kept && n * RARE < range.count))
      return OrderWalkSelection.ofMarks(marks, n, range.first, range.count, this.stored.of(range), this.walk(range));
    return this.listed(markedPositions(marks, n, range.first), n, range);
  }

  /** How a walk of the state at `range` goes: its stretches counted on two cores when they can be. */
  private walk(range: StateRange): WalkOptions {
    return { counting: this.stored!.counting(range), stretch: this.stretch };
  }

  /** The state's whole order when the engine keeps it. */
  private kept(state: string): StateOrder | null {
    return (this.derived.get(pidOrderKey(state))?.array as StateOrder | undefined) ?? null;
  }

  /** The state's whole order, built from its ranks and kept while the budget allows. */
  private built(range: StateRange): StateOrder {
    return keptPerState(this.derived, pidOrderKey(range.state), () => this.dataset.pidOrder(range)!);
  }
}
