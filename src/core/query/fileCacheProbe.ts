// Whether the OS holds a file's pages in its cache, told by timing a few reads of it. The read-ahead
// (fileReadAhead.ts) is for a file the OS has not cached: when it has, the thread's boot and reads
// (~0.46 s of a core at 30M) only take the second core from the first requests, which share their
// scans and decompression with the scan worker. At 10M, 48 fresh starts each way, alternated (docs/
// performance.md, "30 November, morning"): the first pages' median 11.6 ms with the read-ahead against
// 8.7 without it, p95 23.5 against 16.7.
//
// A read of a cached page is a copy: 3-21 µs on the VM measured, once 63 µs. A read from its disk
// took 117-655 µs (the host's cache in front of it), a laptop's SSD takes ~60-100 µs. So a read over
// SLOW_READ_MS is a read from the disk, and a few such among PROBES spread over the file say the
// OS does not hold it; one slow read alone may be this thread put aside by the scheduler.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Reads spread evenly over the file. */
export const PROBES = 16;
/** Bytes a read: one page of the OS's. */
export const PROBE_BYTES = 4096;
/** Slower than any read of a cached page measured, faster than a read from an SSD. */
export const SLOW_READ_MS = 0.05;
/** Slow reads that say the file is not cached (the probe stops at the last of them). */
export const COLD_FROM = 3;

/** Reads PROBE_BYTES of `fd` at `offset` and returns how long it took, in ms. */
export type TimedRead = (fd: number, offset: number, into: Buffer) => number;

const timedRead: TimedRead = (fd, offset, into) => {
  const started = performance.now();
  readSync(fd, into, 0, into.byteLength, offset);
  return performance.now() - started;
};

/**
 * True when the OS seems to hold `path`'s pages: fewer than COLD_FROM of PROBES reads spread over it
 * were slow. False too when the file cannot be read (the read-ahead then finds out for itself).
 */
export function fileLooksCached(path: string, read: TimedRead = timedRead): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const pages = Math.floor(fstatSync(fd).size / PROBE_BYTES);
    if (pages === 0) return true;
    const into = Buffer.allocUnsafe(PROBE_BYTES);
    let slow = 0;
    for (let k = 0; k < PROBES; k++) {
      const page = Math.floor(((k + 0.5) / PROBES) * pages);
      if (read(fd, page * PROBE_BYTES, into) > SLOW_READ_MS && ++slow === COLD_FROM) return false;
    }
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
