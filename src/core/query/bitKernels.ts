// The loops over a filter's bits (filterBits.ts): a bit a person of a state, set where the person
// passes the filter, kept after the filter has been asked twice. Counting two filters from their
// bits reads a 32-bit word for 32 people of each and adds the set bits of their AND; counting them
// from their one-byte vectors reads a word for 4 people of each (countBothEqual8). Marking a page's
// people copies or ANDs the bits, a byte for 8 people, instead of 8 lookups.
//
// Pure functions of typed arrays: the scan worker runs the marking ones on its pieces of a state.

/**
 * A filter's bits over a state: bit (pos - from) of `bytes` (little-endian within a byte, as marks
 * are: markKernels.ts) is set when the person at `pos` passes it. `words` reads the same memory
 * 32 people at a time (bytes' length is a multiple of 4); both are shared memory.
 */
export interface PredicateBits {
  bytes: Uint8Array;
  words: Uint32Array;
  /** The state's first position. */
  from: number;
}

/** Bytes of marks for `count` people: whole 32-bit words, so bits can be read a word at a time. */
export function bitBytes(count: number): number {
  return Math.ceil(count / 32) * 4;
}

/** Set bits of each byte value. */
export const ONES = Uint8Array.from({ length: 256 }, (_, v) => {
  let n = 0;
  for (let x = v; x !== 0; x &= x - 1) n++;
  return n;
});

/** Set bits of a 32-bit word, without lookups. */
function ones32(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Whether every predicate's bits are there and over the same state (so their bit k is the same person). */
export function allHaveBits(bits: ReadonlyArray<PredicateBits | undefined>): bits is PredicateBits[] {
  if (bits.length === 0 || !bits[0]) return false;
  const from = bits[0].from;
  return bits.every((b) => b !== undefined && b.from === from);
}

/** Bit r of every array set (r counted from their common `from`). */
function allSet(bits: readonly PredicateBits[], r: number): number {
  let x = 1;
  for (let k = 0; k < bits.length; k++) x &= bits[k]!.bytes[r >>> 3]! >>> (r & 7);
  return x;
}

function countWords1(a: Uint32Array, w0: number, w1: number): number {
  let n = 0;
  for (let w = w0; w < w1; w++) n += ones32(a[w]!);
  return n;
}

function countWords2(a: Uint32Array, b: Uint32Array, w0: number, w1: number): number {
  let n = 0;
  for (let w = w0; w < w1; w++) n += ones32(a[w]! & b[w]!);
  return n;
}

function countWordsAll(bits: readonly PredicateBits[], w0: number, w1: number): number {
  let n = 0;
  for (let w = w0; w < w1; w++) {
    let x = -1;
    for (let k = 0; k < bits.length && x !== 0; k++) x &= bits[k]!.words[w]!;
    n += ones32(x);
  }
  return n;
}

/**
 * How many positions of [first, end) have their bit set in every array (allHaveBits must hold):
 * the ragged ends a bit at a time, the rest a word at a time.
 */
export function countBits(bits: readonly PredicateBits[], first: number, end: number): number {
  const from = bits[0]!.from;
  let r = first - from;
  const stop = end - from;
  let n = 0;
  for (; r < stop && (r & 31) !== 0; r++) n += allSet(bits, r);
  const w0 = r >>> 5;
  const w1 = stop >>> 5;
  if (w1 > w0) {
    if (bits.length === 1) n += countWords1(bits[0]!.words, w0, w1);
    else if (bits.length === 2) n += countWords2(bits[0]!.words, bits[1]!.words, w0, w1);
    else n += countWordsAll(bits, w0, w1);
    r = w1 << 5;
  }
  for (; r < stop; r++) n += allSet(bits, r);
  return n;
}

/**
 * Writes the bits of [first, end) into `marks` from byte `at` (marks count from the same `from`, so
 * byte `at` of both is the same eight people): copied, or ANDed with what is there (`and`). The
 * last byte keeps no bit past `end`, as markKernels' loops write it. Returns how many are set.
 */
export function bitsInto(bits: PredicateBits, first: number, end: number, marks: Uint8Array, at: number, and: boolean): number {
  const src = bits.bytes;
  const whole = (end - first) >>> 3;
  const last = at + whole;
  let n = 0;
  let o = at;
  // Four bytes at a time where both arrays' words fall on the same bytes (both start a buffer).
  if ((marks.byteOffset & 3) === 0 && (src.byteOffset & 3) === 0) {
    for (; o < last && (o & 3) !== 0; o++) n += byteInto(src, marks, o, 0xff, and);
    const w0 = o >>> 2;
    const w1 = last >>> 2;
    if (w1 > w0) {
      const to = new Uint32Array(marks.buffer, marks.byteOffset, w1);
      const words = bits.words;
      for (let w = w0; w < w1; w++) {
        const x = and ? to[w]! & words[w]! : words[w]!;
        to[w] = x;
        n += ones32(x);
      }
      o = w1 << 2;
    }
  }
  for (; o < last; o++) n += byteInto(src, marks, o, 0xff, and);
  const tail = (end - first) & 7;
  if (tail !== 0) n += byteInto(src, marks, last, (1 << tail) - 1, and);
  return n;
}

function byteInto(src: Uint8Array, marks: Uint8Array, o: number, keep: number, and: boolean): number {
  const x = (and ? marks[o]! & src[o]! : src[o]!) & keep;
  marks[o] = x;
  return ONES[x]!;
}
