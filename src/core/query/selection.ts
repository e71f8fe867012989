// The records an audience matches: either a whole state (a range of positions) or an ascending
// list of positions. Paging is slicing, at any depth, with no OFFSET walk.
export interface Selection {
  readonly total: number;
  /** Positions of matches skip .. skip+limit-1, ascending. */
  page(skip: number, limit: number): ArrayLike<number>;
  /** Bytes held, for the cache's budget. */
  readonly bytes: number;
  /**
   * Optional, for a selection that holds its matches as bits of their state: bit (o & 7) of byte
   * o >>> 3 set for the state's position first + o when it matches. Read, never written: a caller
   * wanting every match in storage order reads them here instead of paging through and sorting.
   */
  readonly stateMarks?: Uint8Array;
}

export class RangeSelection implements Selection {
  readonly bytes = 0;
  constructor(
    private readonly first: number,
    readonly total: number,
  ) {}
  page(skip: number, limit: number): ArrayLike<number> {
    const n = Math.max(0, Math.min(limit, this.total - skip));
    const out = new Uint32Array(n);
    for (let k = 0; k < n; k++) out[k] = this.first + skip + k;
    return out;
  }
}

export class ListSelection implements Selection {
  constructor(private readonly positions: Uint32Array) {}
  get total(): number {
    return this.positions.length;
  }
  get bytes(): number {
    return this.positions.byteLength;
  }
  page(skip: number, limit: number): ArrayLike<number> {
    return this.positions.subarray(Math.min(skip, this.total), Math.min(skip + limit, this.total));
  }
}

export const EMPTY_SELECTION: Selection = new ListSelection(new Uint32Array(0));
