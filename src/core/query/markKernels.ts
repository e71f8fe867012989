// The loops that filter a state into a bit a person instead of a list of positions. A page walked
// through a stored PID order (storedPidOrder.ts) tests a bit a person; listing the matches first
// wrote 4 bytes a match, gathered the second core's half and then set the bits from the list:
// for women in California at 30M (1.78M matches) ~6 ms of scan, ~4 of gathering and ~4 of marking
// on a state's first page. Writing the bits as the vector is read is one pass of a byte per 8 people.
//
// As in scanKernels.ts, each loop is written once per vector type on purpose (V8 compiles an element
// access for the array types it has seen at that spot); anything rarer takes the generic loop.
import type { ScanPredicate } from './scanKernels';
import { valueTest } from './scanKernels';
import { bitBytes, bitsInto, ONES } from './bitKernels';
import { equalFlags, flagNibble, LITTLE_ENDIAN, onlyCode } from './equalBytes';

// Eight people a byte, branchless: a filter that keeps about half is a coin toss for a branch.
function mark8(data: Uint8Array, mask: Uint8Array, first: number, end: number, marks: Uint8Array, at: number): number {
  let n = 0;
  let i = first;
  let o = at;
  for (const stop = end - 7; i < stop; i += 8) {
    const bits =
      mask[data[i]!]! |
      (mask[data[i + 1]!]! << 1) |
      (mask[data[i + 2]!]! << 2) |
      (mask[data[i + 3]!]! << 3) |
      (mask[data[i + 4]!]! << 4) |
      (mask[data[i + 5]!]! << 5) |
      (mask[data[i + 6]!]! << 6) |
      (mask[data[i + 7]!]! << 7);
    marks[o++] = bits;
    n += ONES[bits]!;
  }
  if (i < end) {
    let bits = 0;
    for (let b = 0; i < end; i++, b++) bits |= mask[data[i]!]! << b;
    marks[o] = bits;
    n += ONES[bits]!;
  }
  return n;
}

function mark16(data: Uint16Array, mask: Uint8Array, first: number, end: number, marks: Uint8Array, at: number): number {
  let n = 0;
  let i = first;
  let o = at;
  for (const stop = end - 7; i < stop; i += 8) {
    const bits =
      mask[data[i]!]! |
      (mask[data[i + 1]!]! << 1) |
      (mask[data[i + 2]!]! << 2) |
      (mask[data[i + 3]!]! << 3) |
      (mask[data[i + 4]!]! << 4) |
      (mask[data[i + 5]!]! << 5) |
      (mask[data[i + 6]!]! << 6) |
      (mask[data[i + 7]!]! << 7);
    marks[o++] = bits;
    n += ONES[bits]!;
  }
  if (i < end) {
    let bits = 0;
    for (let b = 0; i < end; i++, b++) bits |= mask[data[i]!]! << b;
    marks[o] = bits;
    n += ONES[bits]!;
  }
  return n;
}

// A filter of one value (GENDER F) marked from two 32-bit reads a byte of marks, with no lookups
// (equalBytes.ts), where mark8 makes eight: California's women at 30M in ~2 ms instead of ~4 on a
// fresh serve's first page. A state's first position falls anywhere in a word, so the words are read
// from the one holding `first` and, when that is not its first byte, each group of eight is put
// together from three words by shifts. Bytes of the words before `first` or after `end` are read,
// never marked; the groups stop where a word would pass the buffer's end, and the last few people
// are marked one by one. With `keep`, the bits are ANDed into those already there (a later filter).
// It reads every word where keep8 skips the bytes with no one left: after a first filter keeping half
// (3.56M people) both passes took 13 ms against 26 with keep8's lookups; after one keeping 2%, about
// the same either way.
function equalInto(data: Uint8Array, code: number, first: number, end: number, marks: Uint8Array, at: number, keep: boolean): number {
  const repeated = Math.imul(code, 0x01010101);
  const shift = (data.byteOffset + first) & 3;
  const from = data.byteOffset + first - shift;
  const w = new Uint32Array(data.buffer, from, (data.buffer.byteLength - from) >>> 2);
  const groups = Math.min((end - first) >>> 3, (w.length - (shift === 0 ? 0 : 1)) >>> 1);
  let n = 0;
  let o = at;
  if (shift === 0) {
    for (let k = 0, stop = groups * 2; k < stop; k += 2, o++) {
      let bits = flagNibble(equalFlags(w[k]!, repeated)) | (flagNibble(equalFlags(w[k + 1]!, repeated)) << 4);
      if (keep) bits &= marks[o]!;
      marks[o] = bits;
      n += ONES[bits]!;
    }
  } else {
    const right = shift * 8;
    const left = 32 - right;
    let low = w[0]!;
    for (let k = 1, stop = groups * 2; k < stop; k += 2, o++) {
      const middle = w[k]!;
      const high = w[k + 1]!;
      let bits =
        flagNibble(equalFlags((low >>> right) | (middle << left), repeated)) |
        (flagNibble(equalFlags((middle >>> right) | (high << left), repeated)) << 4);
      low = high;
      if (keep) bits &= marks[o]!;
      marks[o] = bits;
      n += ONES[bits]!;
    }
  }
  for (let i = first + groups * 8; i < end; i += 8, o++) {
    let bits = 0;
    for (let b = 0, stop = Math.min(8, end - i); b < stop; b++) if (data[i + b] === code) bits |= 1 << b;
    if (keep) bits &= marks[o]!;
    marks[o] = bits;
    n += ONES[bits]!;
  }
  return n;
}

/** The one code of a mask over a one-byte vector that the word-at-a-time loop can take, else -1. */
function equalCode(p: ScanPredicate): number {
  return LITTLE_ENDIAN && p.mask && p.data instanceof Uint8Array ? onlyCode(p.mask) : -1;
}

/** Any other predicate (integer bands, hashes, wide vectors): a test a person. */
function markTested(p: ScanPredicate, first: number, end: number, marks: Uint8Array, at: number): number {
  const data = p.data;
  const test = valueTest(p);
  let n = 0;
  for (let i = first, o = at; i < end; i += 8, o++) {
    let bits = 0;
    for (let b = 0, stop = Math.min(8, end - i); b < stop; b++) if (test(data[i + b]!)) bits |= 1 << b;
    marks[o] = bits;
    n += ONES[bits]!;
  }
  return n;
}

/**
 * Writes one predicate's bits for [first, end) from byte `at` of `marks`; returns how many are set.
 * Copied from the filter's own bits when it has them over the same state (`base`).
 */
function markOne(p: ScanPredicate, first: number, end: number, marks: Uint8Array, at: number, base: number): number {
  if (p.bits && p.bits.from === base) return bitsInto(p.bits, first, end, marks, at, false);
  const code = equalCode(p);
  if (code >= 0) return equalInto(p.data as Uint8Array, code, first, end, marks, at, false);
  if (p.mask && p.data instanceof Uint8Array) return mark8(p.data, p.mask, first, end, marks, at);
  if (p.mask && p.data instanceof Uint16Array) return mark16(p.data, p.mask, first, end, marks, at);
  return markTested(p, first, end, marks, at);
}

// A later filter reads only the bytes that still have a person set: a narrow first filter leaves
// most of them zero.
function keep8(data: Uint8Array, mask: Uint8Array, first: number, end: number, marks: Uint8Array, at: number): number {
  let n = 0;
  for (let i = first, o = at; i < end; i += 8, o++) {
    const had = marks[o]!;
    if (had === 0) continue;
    let bits = 0;
    for (let b = 0, stop = Math.min(8, end - i); b < stop; b++) bits |= mask[data[i + b]!]! << b;
    marks[o] = had & bits;
    n += ONES[had & bits]!;
  }
  return n;
}

function keep16(data: Uint16Array, mask: Uint8Array, first: number, end: number, marks: Uint8Array, at: number): number {
  let n = 0;
  for (let i = first, o = at; i < end; i += 8, o++) {
    const had = marks[o]!;
    if (had === 0) continue;
    let bits = 0;
    for (let b = 0, stop = Math.min(8, end - i); b < stop; b++) bits |= mask[data[i + b]!]! << b;
    marks[o] = had & bits;
    n += ONES[had & bits]!;
  }
  return n;
}

function keepTested(p: ScanPredicate, first: number, end: number, marks: Uint8Array, at: number): number {
  const data = p.data;
  const test = valueTest(p);
  let n = 0;
  for (let i = first, o = at; i < end; i += 8, o++) {
    const had = marks[o]!;
    if (had === 0) continue;
    let bits = 0;
    for (let b = 0, stop = Math.min(8, end - i); b < stop; b++) if (test(data[i + b]!)) bits |= 1 << b;
    marks[o] = had & bits;
    n += ONES[had & bits]!;
  }
  return n;
}

/** Clears the bits of [first, end) whose person fails the predicate; returns how many are left set. */
function keepOne(p: ScanPredicate, first: number, end: number, marks: Uint8Array, at: number, base: number): number {
  if (p.bits && p.bits.from === base) return bitsInto(p.bits, first, end, marks, at, true);
  const code = equalCode(p);
  if (code >= 0) return equalInto(p.data as Uint8Array, code, first, end, marks, at, true);
  if (p.mask && p.data instanceof Uint8Array) return keep8(p.data, p.mask, first, end, marks, at);
  if (p.mask && p.data instanceof Uint16Array) return keep16(p.data, p.mask, first, end, marks, at);
  return keepTested(p, first, end, marks, at);
}

/**
 * Sets bit (pos - base) of `marks` for each position of [first, end) that satisfies every predicate
 * (narrowest first, see bySelectivity) and clears it for the others; returns how many are set.
 * `first - base` must be a multiple of 8: pieces of a state write whole bytes of their own.
 * `between` runs after each pass (the query's time budget).
 */
export function markRange(
  predicates: readonly ScanPredicate[],
  first: number,
  end: number,
  marks: Uint8Array,
  base: number,
  between: () => void = () => undefined,
): number {
  if (end <= first) return 0;
  if ((first - base) % 8 !== 0) throw new Error(`markRange: ${first} does not start a byte of marks from ${base}`);
  const at = (first - base) >>> 3;
  if (predicates.length === 0) {
    marks.fill(0, at, at + Math.ceil((end - first) / 8));
    return 0;
  }
  let n = markOne(predicates[0]!, first, end, marks, at, base);
  between();
  for (let k = 1; k < predicates.length && n > 0; k++) {
    n = keepOne(predicates[k]!, first, end, marks, at, base);
    between();
  }
  return n;
}

/** The positions whose bits are set, ascending: `n` of them, from base `base`, into `out` (or a new list). */
export function markedPositions(marks: Uint8Array, n: number, base: number, out: Uint32Array = new Uint32Array(n)): Uint32Array {
  let k = 0;
  for (let o = 0; o < marks.length && k < n; o++) {
    let bits = marks[o]!;
    while (bits !== 0) {
      const low = bits & -bits;
      out[k++] = base + o * 8 + (31 - Math.clz32(low));
      bits ^= low;
    }
  }
  return out;
}

/**
 * Runs the loops above over small made-up vectors, as warmUpScans does for the listing loops, so the
 * scan worker has compiled them before its first marking job.
 */
export function warmUpMarks(): void {
  const size = 16_384;
  const bytes = new Uint8Array(new SharedArrayBuffer(size));
  const pairs = new Uint16Array(new SharedArrayBuffer(size * 2));
  for (let i = 0; i < size; i++) {
    bytes[i] = i % 3;
    pairs[i] = i % 1000;
  }
  const marks = new Uint8Array(new SharedArrayBuffer(size / 8));
  const byteMask = Uint8Array.of(0, 1, 1);
  const oneValue = Uint8Array.of(0, 1, 0);
  const pairMask = new Uint8Array(1000).fill(1, 0, 500);
  // A filter's bits (filterBits.ts) over the same made-up state, for the loops that copy and AND them.
  const bitBuffer = new Uint8Array(new SharedArrayBuffer(bitBytes(size)));
  markRange([{ data: bytes, mask: byteMask }], 3, size, bitBuffer, 3);
  const bits = { bytes: bitBuffer, words: new Uint32Array(bitBuffer.buffer), from: 3 };
  const kinds: ScanPredicate[][] = [
    [{ data: bytes, mask: byteMask }],
    [{ data: bytes, mask: oneValue }],
    [
      { data: pairs, mask: pairMask },
      { data: bytes, mask: oneValue },
    ],
    [{ data: pairs, mask: pairMask }],
    [{ data: bytes, bands: [{ lo: 1, hi: 1 }] }],
    [
      { data: bytes, mask: byteMask },
      { data: pairs, mask: pairMask },
      { data: bytes, bands: [{ lo: 2, hi: 2 }] },
    ],
    [
      { data: pairs, mask: pairMask },
      { data: bytes, mask: byteMask },
    ],
    [{ data: bytes, mask: byteMask, bits }],
    [
      { data: pairs, mask: pairMask },
      { data: bytes, mask: byteMask, bits },
    ],
  ];
  // Ends on a whole byte and within one: a piece's tail is a branch of its own, and code compiled
  // without it is thrown away on the first state whose last piece has one.
  // From 3, a piece starting inside a word of the vector (equalInto's shifts); from 0, at a word's start.
  for (let round = 0; round < 8; round++)
    for (const predicates of kinds)
      for (const first of [3, 0]) for (const end of [size - 5, size - 8]) markRange(predicates, first, end, marks, first);
}
