// Four one-byte values compared with one code at once, in a 32-bit word and without table lookups:
// the loops that count (scanKernels.ts) and mark (markKernels.ts) a filter of one value (GENDER F,
// MARRIEDCD M), the most common kind an analyst asks, use them.

/** The one code a mask keeps, or -1 when it keeps none or several. */
export function onlyCode(mask: Uint8Array): number {
  let code = -1;
  for (let v = 0; v < mask.length; v++) {
    if (mask[v] === 0) continue;
    if (code >= 0) return -1;
    code = v;
  }
  return code;
}

/**
 * The high bit of each byte of `x` set where that byte equals the code `repeated` holds in every byte
 * (Math.imul(code, 0x01010101)): a byte of x ^ repeated is zero exactly there, and the high bit of
 * each byte of ~(((y & 0x7f7f7f7f) + 0x7f7f7f7f) | y) says so without carries between bytes.
 */
export function equalFlags(x: number, repeated: number): number {
  const y = x ^ repeated;
  return ~(((y & 0x7f7f7f7f) + 0x7f7f7f7f) | y) & 0x80808080;
}

/** How many of equalFlags' four flags are set: summed into the top byte by one multiply. */
export function flagCount(flags: number): number {
  return Math.imul(flags >>> 7, 0x01010101) >>> 24;
}

/**
 * equalFlags' four flags as the low four bits, the word's first byte (in memory) the lowest: the
 * multiply moves the flags at bits 0, 8, 16 and 24 to 21-24, where no two of its partial products
 * meet, so nothing carries into them.
 */
export function flagNibble(flags: number): number {
  return (Math.imul(flags >>> 7, 0x00204081) >>> 21) & 0xf;
}

/** Whether this machine keeps a word's lowest byte first in memory (every platform the app ships for does). */
export const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
