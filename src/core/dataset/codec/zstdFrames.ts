// The layout of zstd frames (RFC 8878, section 3.1), read from their headers without decompressing
// anything. A stored piece (a record block, a vector chunk, a scratch chunk) is a zstd stream: one
// frame as this version writes it, but a valid stream may hold several frames, empty ones and
// skippable ones, one after another. Older versions wrote some pieces as a frame followed by an
// empty frame (node:zlib's one-shot compressor starts a new frame when its output fills its chunk
// exactly), so readers must take those, and writers check they write exactly one frame.

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames have magic numbers 0x184D2A50 to 0x184D2A5F. */
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const BLOCK_HEADER = 3;
const CHECKSUM = 4;

/** One frame of a stream: bytes [start, end), and the size its header states (-1: none; skippable frames hold no content). */
export interface ZstdFrameSpan {
  start: number;
  end: number;
  skippable: boolean;
  contentSize: number;
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** A little-endian unsigned number of `width` bytes at `at` (up to 8 bytes, exact below 2^53). */
function uint(bytes: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = width - 1; i >= 0; i--) value = value * 256 + bytes[at + i]!;
  return value;
}

/**
 * The frame that starts at `start` of `bytes`, or null when the bytes there are not a whole frame
 * (another magic number, a reserved bit set, a reserved block type, or cut short).
 */
export function frameAt(bytes: Uint8Array, start: number): ZstdFrameSpan | null {
  if (start + 4 > bytes.byteLength) return null;
  const magic = u32(bytes, start);
  if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
    if (start + 8 > bytes.byteLength) return null;
    const end = start + 8 + u32(bytes, start + 4);
    return end <= bytes.byteLength ? { start, end, skippable: true, contentSize: -1 } : null;
  }
  if (magic !== ZSTD_MAGIC || start + 5 > bytes.byteLength) return null;
  const descriptor = bytes[start + 4]!;
  if (descriptor & 0x08) return null; // the reserved bit
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const hasChecksum = (descriptor >> 2) & 1;
  const sizeAt = start + 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]!;
  const sizeBytes = sizeFlag === 0 ? singleSegment : [1, 2, 4, 8][sizeFlag]!;
  let at = sizeAt + sizeBytes;
  if (at > bytes.byteLength) return null;
  const stated = sizeBytes === 0 ? -1 : uint(bytes, sizeAt, sizeBytes) + (sizeBytes === 2 ? 256 : 0);
  for (;;) {
    if (at + BLOCK_HEADER > bytes.byteLength) return null;
    const header = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
    const type = (header >> 1) & 3;
    if (type === 3) return null; // reserved
    // An RLE block stores one byte, whatever the size it repeats it to.
    at += BLOCK_HEADER + (type === 1 ? 1 : header >>> 3);
    if (at > bytes.byteLength) return null;
    if (header & 1) break; // the last block
  }
  const end = at + (hasChecksum ? CHECKSUM : 0);
  return end <= bytes.byteLength ? { start, end, skippable: false, contentSize: stated } : null;
}

/** The frames `bytes` is made of, in order; null unless they span every byte (no garbage after them, none cut short). */
export function zstdFrames(bytes: Uint8Array): ZstdFrameSpan[] | null {
  const frames: ZstdFrameSpan[] = [];
  for (let at = 0; at < bytes.byteLength;) {
    const frame = frameAt(bytes, at);
    if (!frame) return null;
    frames.push(frame);
    at = frame.end;
  }
  return frames.length > 0 ? frames : null;
}

/**
 * The decompressed size a stream's frame headers state, all frames together (RFC 8878, 3.1.1.1):
 * -1 when the bytes are not whole frames or a frame states no size.
 */
export function streamContentSize(bytes: Uint8Array): number {
  let size = 0;
  for (const frame of zstdFrames(bytes) ?? [{ skippable: false, contentSize: -1 }]) {
    if (frame.skippable) continue;
    if (frame.contentSize < 0) return -1;
    size += frame.contentSize;
  }
  return size;
}

/** Whether `bytes` is exactly one whole frame stating `size` bytes of content: what every writer here must produce. */
export function isOneFrameOf(bytes: Uint8Array, size: number): boolean {
  const frame = frameAt(bytes, 0);
  return frame !== null && !frame.skippable && frame.end === bytes.byteLength && frame.contentSize === size;
}
