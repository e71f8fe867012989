// A filter's bits over a state, kept once the same filter is asked in the same state a second time.
//
// An analyst refines an audience one filter at a time, and every count of it re-reads the filters
// kept from before: at 30M records California's GENDER and MARRIEDCD were two passes over 3.6M
// one-byte values on every count (1.7 ms on two cores in process, a word for 4 people of each).
// Their bits (bitKernels.ts) are a word for 32 people of each. A filter asked once (one click on the
// way to another value) is not worth its bits: building them is a pass of their own beside the
// count, so they are built on its second ask, from the state's vector, and kept in an LRU of their
// own bytes (an eighth of a byte a person of the state: 450 KB for California's 3.56M people in the
// 30M bench file, ~3.6 MB for its ~29M in a national file).
import type { NormalizedFilter } from '../../shared/audienceRequest';
import { LruCache } from '../cache/lruCache';
import { bitBytes, type PredicateBits } from './bitKernels';
import { markRange } from './markKernels';
import type { Predicate } from './predicates';
import type { TwoCoreScan } from './twoCoreScan';

/** Bytes of bits kept by default: ~140 filters of California at 30M records, ~17 of national California. */
export const FILTER_BITS_BYTES = 64 * 2 ** 20;
/** People a state needs before its filters keep bits: below, a count is a fraction of a millisecond already. */
export const FILTER_BITS_FROM = 65_536;
/** Filters remembered as asked once; past it the memory starts again (a filter then waits for one more ask). */
const ASKED_ONCE_MAX = 4096;

/** A filter over [first, end), exactly: the same key is the same set of people. */
function keyOf(filter: NormalizedFilter, first: number, end: number): string {
  const what = filter.kind === 'string' ? JSON.stringify([...filter.values].sort()) : JSON.stringify(filter.bands);
  return `${first}:${end}:${filter.index}:${filter.kind}:${what}`;
}

export class FilterBits {
  private readonly kept: LruCache<{ bytes: number; bits: PredicateBits }>;
  private readonly askedOnce = new Set<string>();
  /** Bits built so far (tests read it). */
  built = 0;

  constructor(
    private readonly twoCores: TwoCoreScan | null,
    budgetBytes = FILTER_BITS_BYTES,
    /** People a state needs before its filters keep bits (tests: 1). */
    private readonly fromPeople = FILTER_BITS_FROM,
  ) {
    this.kept = new LruCache(budgetBytes, 4096);
  }

  /**
   * Gives `p` (the filter compiled over [first, end), a state) its bits when they are kept, or
   * builds them when the filter was asked here before. Only masks get bits: a hashed field's
   * candidates are checked against records, and integer bands without a mask are wide values.
   */
  attach(filter: NormalizedFilter, p: Predicate, first: number, end: number, between: () => void): void {
    if (!p.mask || end - first < this.fromPeople) return;
    const key = keyOf(filter, first, end);
    const hit = this.kept.get(key);
    if (hit) {
      p.bits = hit.bits;
      return;
    }
    if (!this.askedOnce.has(key)) {
      if (this.askedOnce.size >= ASKED_ONCE_MAX) this.askedOnce.clear();
      this.askedOnce.add(key);
      return;
    }
    const bits = this.build(p, first, end, between);
    this.askedOnce.delete(key);
    this.kept.set(key, { bytes: bits.bytes.byteLength, bits });
    this.built++;
    p.bits = bits;
  }

  /** The predicate's bits over [first, end): marked on both cores when the state is split, else here. */
  private build(p: Predicate, first: number, end: number, between: () => void): PredicateBits {
    const alone = { data: p.data, mask: p.mask! };
    let bytes = this.twoCores?.mark([alone], first, end, between)?.marks;
    if (!bytes) {
      bytes = new Uint8Array(new SharedArrayBuffer(bitBytes(end - first)));
      markRange([alone], first, end, bytes, first, between);
    }
    return { bytes, words: new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2), from: first };
  }
}
