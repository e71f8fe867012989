// The loops a filter runs over a state's positions: scan a range, refine a list, count either.
//
// Each loop over a mask is written once per vector type (Uint8Array, Uint16Array) on purpose. V8
// compiles an element access for the array types it has seen at that spot: one scan loop fed both
// one-byte and two-byte vectors (GENDER and ZIP in one workload) ran 2-3x slower than the same loop
// fed one type (California at 10M: 5.1 against 1.7 ms for ZIP). So the copies stay; anything
// rarer (integer bands, hashes, wider vectors) takes the generic loop.
//
// Pure functions of typed arrays: the scan worker (scanWorker.ts) runs them on its pieces of a state.
import type { IntBand } from '../../shared/audienceRequest';
import type { Vector } from '../dataset/codec/columnVector';
import { allHaveBits, countBits, type PredicateBits } from './bitKernels';
import { equalFlags, flagCount, onlyCode } from './equalBytes';

/**
 * What a loop needs of a predicate (predicates.ts): its vector and one way to test a value; a mask's
 * predicate may also carry its bits over the state (filterBits.ts), which count and mark faster.
 */
export type ScanPredicate =
  | { data: Vector; mask: Uint8Array; bands?: undefined; hashes?: undefined; bits?: PredicateBits }
  | { data: Vector; mask?: undefined; bands: IntBand[]; hashes?: undefined; bits?: undefined }
  | { data: Vector; mask?: undefined; bands?: undefined; hashes: Set<number>; bits?: undefined };

function inBands(v: number, bands: IntBand[]): boolean {
  for (let b = 0; b < bands.length; b++) if (v >= bands[b]!.lo && v <= bands[b]!.hi) return true;
  return false;
}

/** A test for one value: for the predicate kinds that have no mask. */
export function valueTest(p: ScanPredicate): (v: number) => boolean {
  if (p.mask) {
    const mask = p.mask;
    return (v) => mask[v] === 1;
  }
  if (p.hashes) {
    const hashes = p.hashes;
    if (hashes.size === 1) {
      const only = hashes.values().next().value as number;
      return (v) => v === only;
    }
    return (v) => hashes.has(v);
  }
  const bands = p.bands;
  return (v) => inBands(v, bands);
}

// Branchless scans: every position is written and the count moves on by the mask's 0 or 1. A
// filter that keeps about half is a coin toss for the branch predictor, and a branch cost five
// times this loop (7.9 against 1.5 ms over 1.2M positions). out[n] stays in bounds: n never
// passes the positions read so far.
function scan8(data: Uint8Array, mask: Uint8Array, first: number, end: number, out: Uint32Array): number {
  let n = 0;
  for (let i = first; i < end; i++) {
    out[n] = i;
    n += mask[data[i]!]!;
  }
  return n;
}

function scan16(data: Uint16Array, mask: Uint8Array, first: number, end: number, out: Uint32Array): number {
  let n = 0;
  for (let i = first; i < end; i++) {
    out[n] = i;
    n += mask[data[i]!]!;
  }
  return n;
}

/** Hashed values compared in a loop up to this many; more are looked up in the Set. */
const HASHES_COMPARED = 8;

// A hashed field's filter (PID, a phone, an address) names a few values and matches a few records,
// so here a branch is cheap and rarely taken. Comparing in the loop instead of calling a test a
// value: California's PID scan at 10M went from ~7 to ~1 ms.
function scanHashes32(data: Uint32Array, hashes: Uint32Array, first: number, end: number, out: Uint32Array): number {
  let n = 0;
  if (hashes.length === 1) {
    const only = hashes[0]!;
    for (let i = first; i < end; i++) if (data[i] === only) out[n++] = i;
    return n;
  }
  for (let i = first; i < end; i++) {
    const v = data[i]!;
    for (let k = 0; k < hashes.length; k++)
      if (v === hashes[k]) {
        out[n++] = i;
        break;
      }
  }
  return n;
}

/** Positions in [first, end) that satisfy the predicate, written to `out`; returns how many. */
export function scan(p: ScanPredicate, first: number, end: number, out: Uint32Array): number {
  if (p.mask && p.data instanceof Uint8Array) return scan8(p.data, p.mask, first, end, out);
  if (p.mask && p.data instanceof Uint16Array) return scan16(p.data, p.mask, first, end, out);
  if (p.hashes && p.hashes.size <= HASHES_COMPARED && p.data instanceof Uint32Array)
    return scanHashes32(p.data, Uint32Array.from(p.hashes), first, end, out);
  const data = p.data;
  const test = valueTest(p);
  let n = 0;
  for (let i = first; i < end; i++) if (test(data[i]!)) out[n++] = i;
  return n;
}

// Branchless, as the scans: kept never passes k.
function refine8(data: Uint8Array, mask: Uint8Array, list: Uint32Array, n: number): number {
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const i = list[k]!;
    list[kept] = i;
    kept += mask[data[i]!]!;
  }
  return kept;
}

function refine16(data: Uint16Array, mask: Uint8Array, list: Uint32Array, n: number): number {
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const i = list[k]!;
    list[kept] = i;
    kept += mask[data[i]!]!;
  }
  return kept;
}

/** Keeps, in place, the first `n` positions of `list` that satisfy the predicate; returns how many. */
export function refine(p: ScanPredicate, list: Uint32Array, n: number): number {
  if (p.mask && p.data instanceof Uint8Array) return refine8(p.data, p.mask, list, n);
  if (p.mask && p.data instanceof Uint16Array) return refine16(p.data, p.mask, list, n);
  const data = p.data;
  const test = valueTest(p);
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const i = list[k]!;
    if (test(data[i]!)) list[kept++] = i;
  }
  return kept;
}

function tally8(data: Uint8Array, mask: Uint8Array, list: Uint32Array, n: number): number {
  let kept = 0;
  for (let k = 0; k < n; k++) kept += mask[data[list[k]!]!]!;
  return kept;
}

function tally16(data: Uint16Array, mask: Uint8Array, list: Uint32Array, n: number): number {
  let kept = 0;
  for (let k = 0; k < n; k++) kept += mask[data[list[k]!]!]!;
  return kept;
}

/** How many of the first `n` positions of `list` satisfy the predicate (the list is not changed). */
export function tally(p: ScanPredicate, list: Uint32Array, n: number): number {
  if (p.mask && p.data instanceof Uint8Array) return tally8(p.data, p.mask, list, n);
  if (p.mask && p.data instanceof Uint16Array) return tally16(p.data, p.mask, list, n);
  const data = p.data;
  const test = valueTest(p);
  let kept = 0;
  for (let k = 0; k < n; k++) if (test(data[list[k]!]!)) kept++;
  return kept;
}

const NO_WORDS = new Uint32Array(0);

/** Four one-byte values a read: [from, to) of `data` as 32-bit words, `from` aligned by the caller (or at `to`). */
function words(data: Uint8Array, from: number, to: number): Uint32Array {
  const count = (to - from) >>> 2;
  return count === 0 ? NO_WORDS : new Uint32Array(data.buffer, data.byteOffset + from, count);
}

/** The first position at or after `first` whose byte starts a 32-bit word of `data`'s buffer. */
function aligned(data: Uint8Array, first: number, end: number): number {
  return Math.min(end, first + ((4 - ((data.byteOffset + first) & 3)) & 3));
}

// Counting reads a one-byte vector four values a load: which byte is which position does not
// matter to a sum. 0.85 against 1.7 ms for California's 1.2M positions at 10M records.
function count8(data: Uint8Array, mask: Uint8Array, first: number, end: number): number {
  let n = 0;
  let i = first;
  for (const head = aligned(data, first, end); i < head; i++) n += mask[data[i]!]!;
  const w = words(data, i, end);
  for (let k = 0; k < w.length; k++) {
    const x = w[k]!;
    n += mask[x & 0xff]! + mask[(x >>> 8) & 0xff]! + mask[(x >>> 16) & 0xff]! + mask[x >>> 24]!;
  }
  for (i += w.length * 4; i < end; i++) n += mask[data[i]!]!;
  return n;
}

function count16(data: Uint16Array, mask: Uint8Array, first: number, end: number): number {
  let n = 0;
  for (let i = first; i < end; i++) n += mask[data[i]!]!;
  return n;
}

// A filter of one value counted a word at a time with no lookups (equalBytes.ts): the four flags
// are summed by one multiply. About twice as fast as count8's four lookups a word (California's two
// one-value filters at 30M: 2.5 ms on two cores before).
function countEqual8(data: Uint8Array, code: number, first: number, end: number): number {
  let n = 0;
  let i = first;
  for (const head = aligned(data, first, end); i < head; i++) if (data[i] === code) n++;
  const w = words(data, i, end);
  const repeated = Math.imul(code, 0x01010101);
  for (let k = 0; k < w.length; k++) n += flagCount(equalFlags(w[k]!, repeated));
  for (i += w.length * 4; i < end; i++) if (data[i] === code) n++;
  return n;
}

/** How many positions in [first, end) satisfy the predicate. */
export function countRange(p: ScanPredicate, first: number, end: number): number {
  if (p.mask && p.data instanceof Uint8Array) {
    const code = onlyCode(p.mask);
    return code >= 0 ? countEqual8(p.data, code, first, end) : count8(p.data, p.mask, first, end);
  }
  if (p.mask && p.data instanceof Uint16Array) return count16(p.data, p.mask, first, end);
  const data = p.data;
  const test = valueTest(p);
  let n = 0;
  for (let i = first; i < end; i++) if (test(data[i]!)) n++;
  return n;
}

// Two one-byte vectors read side by side, four positions a load from each: one pass instead of a
// scan that writes every position and a second pass over the list (2.3 against 3.8 ms, GENDER and
// MARRIEDCD in California at 10M). Both vectors' word boundaries must fall at the same positions.
function countBoth8(a: Uint8Array, ma: Uint8Array, b: Uint8Array, mb: Uint8Array, first: number, end: number): number {
  let n = 0;
  let i = first;
  for (const head = aligned(a, first, end); i < head; i++) n += ma[a[i]!]! & mb[b[i]!]!;
  const wa = words(a, i, end);
  const wb = words(b, i, end);
  for (let k = 0; k < wa.length; k++) {
    const x = wa[k]!;
    const y = wb[k]!;
    n +=
      (ma[x & 0xff]! & mb[y & 0xff]!) +
      (ma[(x >>> 8) & 0xff]! & mb[(y >>> 8) & 0xff]!) +
      (ma[(x >>> 16) & 0xff]! & mb[(y >>> 16) & 0xff]!) +
      (ma[x >>> 24]! & mb[y >>> 24]!);
  }
  for (i += wa.length * 4; i < end; i++) n += ma[a[i]!]! & mb[b[i]!]!;
  return n;
}

function countBothEqual8(a: Uint8Array, ca: number, b: Uint8Array, cb: number, first: number, end: number): number {
  let n = 0;
  let i = first;
  for (const head = aligned(a, first, end); i < head; i++) if (a[i] === ca && b[i] === cb) n++;
  const wa = words(a, i, end);
  const wb = words(b, i, end);
  const ra = Math.imul(ca, 0x01010101);
  const rb = Math.imul(cb, 0x01010101);
  for (let k = 0; k < wa.length; k++) n += flagCount(equalFlags(wa[k]!, ra) & equalFlags(wb[k]!, rb));
  for (i += wa.length * 4; i < end; i++) if (a[i] === ca && b[i] === cb) n++;
  return n;
}

/** How many positions satisfy both predicates in one pass, or null when they are not two one-byte masks read alike. */
function countBoth(p: ScanPredicate, q: ScanPredicate, first: number, end: number): number | null {
  if (!p.mask || !q.mask || !(p.data instanceof Uint8Array) || !(q.data instanceof Uint8Array)) return null;
  if (((p.data.byteOffset - q.data.byteOffset) & 3) !== 0) return null;
  const ca = onlyCode(p.mask);
  const cb = onlyCode(q.mask);
  if (ca >= 0 && cb >= 0) return countBothEqual8(p.data, ca, q.data, cb, first, end);
  return countBoth8(p.data, p.mask, q.data, q.mask, first, end);
}

/**
 * The positions of [first, end) that satisfy every predicate (narrowest first, see bySelectivity):
 * into `out`, returning how many; with `countOnly`, just how many (from the predicates' bits when
 * all have them; else the last step counts instead of writing, and one or two one-byte filters are
 * counted in a single pass). `between` runs after
 * each pass (the query's time budget).
 */
export function matchRange(
  predicates: readonly ScanPredicate[],
  first: number,
  end: number,
  out: Uint32Array,
  countOnly: boolean,
  between: () => void = () => undefined,
): number {
  if (predicates.length === 0 || end <= first) return 0;
  const last = predicates.length - 1;
  if (countOnly) {
    const bits = predicates.map((p) => p.bits);
    if (allHaveBits(bits)) return countBits(bits, first, end);
  }
  if (countOnly && last === 0) return countRange(predicates[0]!, first, end);
  if (countOnly && last === 1) {
    const both = countBoth(predicates[0]!, predicates[1]!, first, end);
    if (both !== null) return both;
  }
  let n = scan(predicates[0]!, first, end, out);
  between();
  for (let k = 1; k <= last && n > 0; k++) {
    n = countOnly && k === last ? tally(predicates[k]!, out, n) : refine(predicates[k]!, out, n);
    between();
  }
  return n;
}

/**
 * Runs every loop above a few times over small made-up vectors, so V8 has compiled them before the
 * first real scan: a loop's first run over 600,000 positions took 2.4-3.8 ms longer than its next
 * ones (it ran interpreted until compiled). The scan worker runs it before it takes jobs (~20 ms
 * of its own thread), so the first split scans do not wait on its compiling. The vectors are
 * shared memory, as the dataset's are.
 */
export function warmUpScans(): void {
  const size = 16_384;
  const bytes = new Uint8Array(new SharedArrayBuffer(size));
  const pairs = new Uint16Array(new SharedArrayBuffer(size * 2));
  const hashed = new Uint32Array(new SharedArrayBuffer(size * 4));
  for (let i = 0; i < size; i++) {
    bytes[i] = i % 3;
    pairs[i] = i % 1000;
    hashed[i] = (i * 2654435761) >>> 0;
  }
  const out = new Uint32Array(size);
  const byteMask = Uint8Array.of(0, 1, 1);
  const oneCode = Uint8Array.of(0, 0, 1);
  const pairMask = new Uint8Array(1000).fill(1, 0, 500);
  const kinds: ScanPredicate[][] = [
    [{ data: bytes, mask: byteMask }],
    [{ data: pairs, mask: pairMask }],
    [{ data: hashed, hashes: new Set([hashed[7]!]) }],
    [
      { data: bytes, mask: byteMask },
      { data: bytes, mask: byteMask },
    ],
    [{ data: bytes, mask: oneCode }],
    [
      { data: bytes, mask: oneCode },
      { data: bytes, mask: oneCode },
    ],
    [
      { data: bytes, mask: byteMask },
      { data: pairs, mask: pairMask },
      { data: bytes, mask: byteMask },
    ],
    [
      { data: pairs, mask: pairMask },
      { data: bytes, mask: byteMask },
      { data: pairs, mask: pairMask },
    ],
  ];
  for (let round = 0; round < 8; round++)
    for (const predicates of kinds) {
      matchRange(predicates, 1, size, out, true);
      matchRange(predicates, 1, size, out, false);
    }
}
