// Whole reads and writes at a file offset: node's readSync and writeSync may move fewer bytes than
// asked, so every scratch file that keeps its own offsets (the import's staging, the vectors'
// spills) loops the same way.
import { readSync, writeSync } from 'node:fs';

/** Writes all of `bytes` at `at`. */
export function writeAllAt(fd: number, bytes: Uint8Array, at: number): void {
  for (let done = 0; done < bytes.byteLength;) done += writeSync(fd, bytes, done, bytes.byteLength - done, at + done);
}

/** Reads `length` bytes from `at` into the start of `into`; false when the file ends first. */
export function readAllAt(fd: number, into: Uint8Array, length: number, at: number): boolean {
  for (let done = 0; done < length;) {
    const n = readSync(fd, into, done, length - done, at + done);
    if (n === 0) return false;
    done += n;
  }
  return true;
}
