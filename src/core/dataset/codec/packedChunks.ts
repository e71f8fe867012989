// A chunk of a one-byte vector whose values are all small (codes of a field with a few values: a
// gender, a flag, a band) is stored with its values packed at 1, 2 or 4 bits, since format 8.
// Decompressing such a chunk was the first use of a field: zstd writes every output byte through its
// entropy decoder (~0.57 GB/s on the 2-core machine), so California's GENDER at 30M, 3.56 MB from 55
// chunks, took 6.3 ms of a core, most of its first page. Unpacking 2-bit values through a table
// takes 1.1 ms for the same chunks (docs/dataset-format.md, "Vectors").
//
// The stored bytes begin with a zstd skippable frame's magic (0x184D2A5A), which no zstd frame
// begins with, so a reader tells a packed chunk from a zstd one by its first four bytes:
//   u32le magic, u32le length of what follows, u8 bits (1, 2 or 4), u8 form (0: the packed bytes
//   themselves, 1: one zstd frame of them), then the packed bytes or their frame.
// Value i sits in byte i * bits / 8, from the byte's low bits up.
import type { ZstdCompressor, ZstdDecompressor } from './zstdContext';

export const PACKED_MAGIC = 0x184d2a5a;
const HEADER_BYTES = 10;
const RAW = 0;
const ZSTD = 1;

/** Bits a value takes for a chunk whose largest value is `max`; 0 when it is not packed. */
export function bitsFor(max: number): 0 | 1 | 2 | 4 {
  return max <= 1 ? 1 : max <= 3 ? 2 : max <= 15 ? 4 : 0;
}

/** Whether stored chunk bytes are a packed chunk (else a zstd stream). */
export function isPacked(data: Uint8Array): boolean {
  return data.length >= 4 && (data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24)) >>> 0 === PACKED_MAGIC;
}

/** The bitwise OR of every value: the values all fit `bits` bits when it does. Stops once it reaches 16. */
function orOfValues(values: Uint8Array): number {
  let or = 0;
  let i = 0;
  if (values.byteOffset % 4 === 0) {
    const words = new Uint32Array(values.buffer, values.byteOffset, values.length >>> 2);
    // A word at a time, 4 values in it; a value of 16 or more shows in the high nibble of its byte.
    let acc = 0;
    for (let j = 0; j < words.length; j++) {
      acc |= words[j]!;
      if ((j & 1023) === 1023 && (acc & 0xf0f0f0f0) !== 0) break;
    }
    or = (acc | (acc >>> 8) | (acc >>> 16) | (acc >>> 24)) & 0xff;
    i = words.length * 4;
  }
  for (; i < values.length && or < 16; i++) or |= values[i]!;
  return or;
}

/** The values at `bits` each, value i in byte i * bits / 8 from its low bits up. */
function pack(values: Uint8Array, bits: 1 | 2 | 4): Uint8Array {
  const perByte = 8 / bits;
  const n = values.length;
  const out = new Uint8Array(Math.ceil(n / perByte));
  const whole = Math.floor(n / perByte);
  const v = values;
  let i = 0;
  if (bits === 1)
    for (let j = 0; j < whole; j++, i += 8)
      out[j] =
        v[i]! |
        (v[i + 1]! << 1) |
        (v[i + 2]! << 2) |
        (v[i + 3]! << 3) |
        (v[i + 4]! << 4) |
        (v[i + 5]! << 5) |
        (v[i + 6]! << 6) |
        (v[i + 7]! << 7);
  else if (bits === 2) for (let j = 0; j < whole; j++, i += 4) out[j] = v[i]! | (v[i + 1]! << 2) | (v[i + 2]! << 4) | (v[i + 3]! << 6);
  else for (let j = 0; j < whole; j++, i += 2) out[j] = v[i]! | (v[i + 1]! << 4);
  for (let k = 0; i < n; i++, k++) out[whole]! |= v[i]! << (k * bits);
  return out;
}

/**
 * The stored bytes of a chunk of one-byte `values`: packed when every value fits 4 bits, else their
 * plain zstd frame. The plain frame of a packable chunk is not tried: on the 300,000-record bench
 * file it was never under 60% of the packed form in any of the 1,825 one-byte chunks, and
 * compressing it to compare made writing a chunk ~0.28 ms instead of ~0.1 (0.17 s more of an
 * import's main thread at 200,000 rows). Data where it would win costs room, never a wrong value.
 */
export function packedOrPlain(values: Uint8Array, compressor: ZstdCompressor): Uint8Array {
  // The OR of the values is at most 1, 3 or 15 exactly when their largest is.
  const bits = bitsFor(orOfValues(values));
  if (bits === 0 || values.length === 0) return compressor.compress(values);
  const packed = pack(values, bits);
  const framed = compressor.compress(packed);
  return framed.length < packed.length * 0.9 ? withHeader(bits, ZSTD, framed) : withHeader(bits, RAW, packed);
}

function withHeader(bits: 1 | 2 | 4, form: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, PACKED_MAGIC, true);
  view.setUint32(4, 2 + body.length, true);
  out[8] = bits;
  out[9] = form;
  out.set(body, HEADER_BYTES);
  return out;
}

/** Each byte's values, one a byte, as little-endian words: 4 of 2 bits, or 2 of 4 bits; 8 of 1 bit in two words. */
const TWO_BITS = new Uint32Array(256);
const FOUR_BITS = new Uint16Array(256);
const ONE_BIT_LOW = new Uint32Array(256);
const ONE_BIT_HIGH = new Uint32Array(256);
for (let b = 0; b < 256; b++) {
  TWO_BITS[b] = ((b & 3) | (((b >> 2) & 3) << 8) | (((b >> 4) & 3) << 16) | (((b >> 6) & 3) << 24)) >>> 0;
  FOUR_BITS[b] = (b & 15) | ((b >> 4) << 8);
  ONE_BIT_LOW[b] = ((b & 1) | (((b >> 1) & 1) << 8) | (((b >> 2) & 1) << 16) | (((b >> 3) & 1) << 24)) >>> 0;
  ONE_BIT_HIGH[b] = (((b >> 4) & 1) | (((b >> 5) & 1) << 8) | (((b >> 6) & 1) << 16) | (((b >> 7) & 1) << 24)) >>> 0;
}

/** The word tables above give values in order only on a little-endian machine (every platform the app ships for). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A thread's room for a zstd-framed packed chunk, kept between chunks. */
let scratch = new Uint8Array(0);

/**
 * Unpacks a packed chunk into `out`, one byte a value (its length is the chunk's values). Throws a
 * plain Error on any malformed part; the caller reports it as the chunk's damage.
 */
export function unpackChunk(data: Uint8Array, out: Uint8Array, decompressor: ZstdDecompressor): void {
  if (data.length < HEADER_BYTES) throw new Error('a packed chunk shorter than its header');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const bits = data[8]!;
  const form = data[9]!;
  if (view.getUint32(4, true) !== data.length - 8) throw new Error("a packed chunk's length is not its frame's");
  if ((bits !== 1 && bits !== 2 && bits !== 4) || (form !== RAW && form !== ZSTD)) throw new Error('a packed chunk of an unknown kind');
  const perByte = 8 / bits;
  const bytes = Math.ceil(out.length / perByte);
  let packed = data.subarray(HEADER_BYTES);
  if (form === ZSTD) {
    if (scratch.length < bytes) scratch = new Uint8Array(Math.max(bytes, 16_384));
    decompressor.decompressInto(packed, scratch.subarray(0, bytes));
    packed = scratch.subarray(0, bytes);
  } else if (packed.length !== bytes) throw new Error("a packed chunk's values are not its size");
  unpackInto(packed, bits, out);
}

/** Writes the values of `packed` (`bits` each) into `out`, whole words at a time where `out` is aligned. */
function unpackInto(packed: Uint8Array, bits: 1 | 2 | 4, out: Uint8Array): void {
  const perByte = 8 / bits;
  // Whole packed bytes whose values all fall inside `out`; the rest value by value.
  let whole = Math.floor(out.length / perByte);
  const aligned = LITTLE_ENDIAN && out.byteOffset % 4 === 0;
  if (bits === 2 && aligned) {
    const words = new Uint32Array(out.buffer, out.byteOffset, whole);
    for (let j = 0; j < whole; j++) words[j] = TWO_BITS[packed[j]!]!;
  } else if (bits === 4 && aligned) {
    const halves = new Uint16Array(out.buffer, out.byteOffset, whole);
    for (let j = 0; j < whole; j++) halves[j] = FOUR_BITS[packed[j]!]!;
  } else if (bits === 1 && aligned) {
    const words = new Uint32Array(out.buffer, out.byteOffset, whole * 2);
    for (let j = 0; j < whole; j++) {
      const b = packed[j]!;
      words[2 * j] = ONE_BIT_LOW[b]!;
      words[2 * j + 1] = ONE_BIT_HIGH[b]!;
    }
  } else whole = 0;
  const mask = (1 << bits) - 1;
  for (let i = whole * perByte; i < out.length; i++) out[i] = (packed[(i / perByte) | 0]! >> ((i % perByte) * bits)) & mask;
}

/**
 * Rounds of the warm-up: enough calls for V8 to finish optimizing the loops. One call a width left
 * them at V8's first tiers, and one kind of array let the first real chunk throw the optimized code
 * away ("wrong map": a chunk stored as it is reaches unpackInto as a Buffer, a zstd-framed one as a
 * Uint8Array); either way, a fresh `serve`'s first page in a large state had unpackInto compiled
 * while it ran (`--trace-opt`: ~10 ms of the compiler on each of the two threads, beside the
 * request, during California's first page at 30M).
 */
const WARM_ROUNDS = 40;

/**
 * Unpacks chunks of each width, so the first use of a field in a serving process does not also
 * compile the loops (~4 ms the first time, measured, against ~1 ms warm for 55 chunks): from a
 * Buffer and from a Uint8Array, into shared memory (a vector's, datasetVectors.ts) and into a plain
 * one (the verify's scratch), as real chunks come.
 */
export function warmUpUnpacking(): void {
  const values = 4096;
  const outs = [new Uint8Array(new SharedArrayBuffer(values)), new Uint8Array(values)];
  for (let round = 0; round < WARM_ROUNDS; round++)
    for (const bits of [1, 2, 4] as const) {
      const bytes = (values * bits) / 8;
      for (const packed of [Buffer.alloc(bytes), new Uint8Array(bytes)]) for (const out of outs) unpackInto(packed, bits, out);
    }
}
