// An audience's filters run over its state's positions, for the embedded engine: compiled to
// predicates over the field vectors (predicates.ts), narrowest first, then counted, listed or marked
// a bit a person, on two cores when the state is large (twoCoreScan.ts).
import type { Audience } from '../audience/contract/engine';
import type { Dataset, StateRange } from '../dataset/read/dataset';
import { markRange } from './markKernels';
import { allHaveBits, bitBytes } from './bitKernels';
import type { FilterBits } from './filterBits';
import { DictionaryIndex, bySelectivity, compilePredicate, verifyHashed, type Predicate } from './predicates';
import { matchRange } from './scanKernels';
import type { TwoCoreScan } from './twoCoreScan';

export class StateFilters {
  /** match()'s working list of positions (queries run one at a time on this thread). */
  private scratch = new Uint32Array(0);

  constructor(
    private readonly dataset: Dataset,
    private readonly dictionaries: DictionaryIndex,
    private readonly twoCores: TwoCoreScan | null,
    /** Bits of filters asked before (filterBits.ts); null: every filter reads its vector. */
    private readonly bits: FilterBits | null = null,
  ) {}

  /** The positions the last match() listed (its first n places), until the next one. */
  get listed(): Uint32Array {
    return this.scratch;
  }

  /**
   * How many positions of [first, end) match the audience's filters; unless `countOnly`, they are
   * also the first that-many places of `listed`, ascending. Hashed fields need the positions (their
   * candidates are checked against the records), so they are always listed.
   */
  match(audience: Audience, first: number, end: number, countOnly: boolean, checkBudget: () => void): number {
    const predicates = this.compiled(audience, first, end, checkBudget);
    if (!predicates) return 0;
    const verified = predicates.some((p) => p.verify);
    // A state's worth of positions, kept between queries: allocating (and zeroing) 4 bytes a
    // record of California for every count was a millisecond and most of the garbage of a count.
    if (this.scratch.length < end - first) this.scratch = new Uint32Array(end - first);
    const tallyOnly = countOnly && !verified;
    // Counted from bits alone (matchRange), a word for 32 people: here, since handing the count to
    // the worker would cost more than it; as a mark from bits alone is (mark()).
    const fromBits = tallyOnly && allHaveBits(predicates.map((p) => p.bits));
    const n =
      (fromBits ? null : this.twoCores?.match(predicates, first, end, this.scratch, tallyOnly, checkBudget)) ??
      matchRange(predicates, first, end, this.scratch, tallyOnly, checkBudget);
    return verified ? verifyHashed(this.dataset, predicates, this.scratch, n, checkBudget) : n;
  }

  /**
   * The matches of a state's filters as a bit a person (markKernels.ts) and how many; null when a
   * filter is on a hashed field (its candidates are checked against the records, from a list).
   */
  mark(audience: Audience, range: StateRange, checkBudget: () => void): { marks: Uint8Array; n: number } | null {
    const first = range.first;
    const end = first + range.count;
    const predicates = this.compiled(audience, first, end, checkBudget);
    if (!predicates) return { marks: new Uint8Array(0), n: 0 };
    if (predicates.some((p) => p.verify)) return null;
    // From bits alone, a copy and ANDs a byte for 8 people: here, as a count from bits is.
    const split = allHaveBits(predicates.map((p) => p.bits)) ? null : this.twoCores?.mark(predicates, first, end, checkBudget);
    if (split) return split;
    // Shared as a split's are, so a walk through the stored order can count its stretches on both cores (stretchCounter.ts).
    const bytes = bitBytes(end - first);
    const marks = this.twoCores ? new Uint8Array(new SharedArrayBuffer(bytes)) : new Uint8Array(bytes);
    return { marks, n: markRange(predicates, first, end, marks, first, checkBudget) };
  }

  /**
   * The filters' predicates over [first, end), narrowest first, with their bits when kept; null when
   * no one can match (an empty range, a value no record holds).
   */
  private compiled(audience: Audience, first: number, end: number, between: () => void): Predicate[] | null {
    const predicates: Predicate[] = [];
    for (const filter of audience.filters) {
      const p = compilePredicate(this.dataset, this.dictionaries, filter, { first, count: end - first });
      if (!p) return null;
      predicates.push(p);
    }
    if (this.bits && end > first)
      for (let k = 0; k < predicates.length; k++) this.bits.attach(audience.filters[k]!, predicates[k]!, first, end, between);
    return end <= first ? null : bySelectivity(predicates, first, end);
  }
}
