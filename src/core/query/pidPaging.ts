// Which way a state's selections page in PID order (docs/dataset-format.md, "Record order"): a file
// in PID order pages by position; a ranked file through the order it stores, a chunk at a time
// (storedPidOrder.ts), so no request waits for a whole state's order; a ranked file written before
// orders were stored through the state's whole order, built from its ranks by the warm-up
// (pidOrderWarmup.ts) or by the state's first page, and kept while the budget allows.
import type { LruCache } from '../cache/lruCache';
import type { StateRange } from '../dataset/format/datasetTypes';
import type { StateOrder } from '../dataset/format/pidRanks';
import type { Dataset } from '../dataset/read/dataset';
import { keptPerState, type Derived } from './derivedArrays';
import { OrderedRangeSelection, orderedSelection } from './pidOrder';
import { pidOrderKey } from './pidOrderWarmup';
import { ListSelection, RangeSelection, type Selection } from './selection';
import { OrderWalkSelection, StoredPidOrder, StoredRangeSelection } from './storedPidOrder';

export class PidPaging {
  private readonly stored: StoredPidOrder | null;

  constructor(
    private readonly dataset: Dataset,
    private readonly derived: LruCache<Derived>,
  ) {
    this.stored = !dataset.inPidOrder && dataset.storesPidOrder ? new StoredPidOrder(dataset) : null;
  }

  /** A whole state, in PID order. */
  whole(range: StateRange): Selection {
    if (this.dataset.inPidOrder) return new RangeSelection(range.first, range.count);
    if (this.stored) return new StoredRangeSelection(range.first, range.count, this.stored.of(range));
    return new OrderedRangeSelection(range.first, this.built(range).order);
  }

  /** The first `n` of `positions` (ascending, each once, all in the state at `range`), in PID order; copies what it keeps. */
  listed(positions: Uint32Array, n: number, range: StateRange): Selection {
    if (this.dataset.inPidOrder) return new ListSelection(positions.slice(0, n));
    // A walk costs a first page a bit a person to mark and the ranks up to its matches (a rare
    // audience's first page walks far: once, its running counts are kept for the next pages).
    if (this.stored) return OrderWalkSelection.of(positions, n, range.first, range.count, this.stored.of(range));
    return orderedSelection(positions, n, range.first, this.built(range));
  }

  /** The state's whole order, built from its ranks and kept while the budget allows. */
  private built(range: StateRange): StateOrder {
    return keptPerState(this.derived, pidOrderKey(range.state), () => this.dataset.pidOrder(range)!);
  }
}
