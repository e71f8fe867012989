// Writing pages of memory and freeing it at once: the native heap written ahead (nativeHeapAhead.ts)
// on its own thread (nativeHeapWorker.ts). Apart from nativeHeapAhead.ts, which starts that thread:
// a worker's module graph does not import startWorker.

/** One byte written a 4 KB page (the smallest page of the systems the app runs on) maps it. */
const PAGE_BYTES = 4096;

/** ArrayBuffer.prototype.transfer (ES2024; Node 22 has it): transfer(0) frees the memory now, not at a collection. */
type Transferable = ArrayBuffer & { transfer(length: number): ArrayBuffer };

/** Frees a buffer's memory at once (it is detached, its length 0). */
export function releaseNow(buffer: ArrayBuffer): void {
  (buffer as Transferable).transfer(0);
}

/** Writes a byte in each 4 KB page of `piece`, which maps the page. */
export function writePages(piece: ArrayBuffer): void {
  const view = new Uint8Array(piece);
  for (let at = 0; at < view.length; at += PAGE_BYTES) view[at] = 1;
}

/** Writes the pages of every piece, then frees it: malloc keeps its pages mapped. Returns the bytes written. */
export function writeAndRelease(pieces: readonly ArrayBuffer[]): number {
  let bytes = 0;
  for (const piece of pieces) {
    writePages(piece);
    bytes += piece.byteLength;
    releaseNow(piece);
  }
  return bytes;
}
