// A file being written, flushed to disk a step behind its writer on libuv's thread pool, so that the
// sync before it is published (atomicFile.ts) finds little left to write. Syncing costs 1.5-2 ms a
// megabyte on the VM of docs/performance.md: a 200,000-record dataset (~80 MB) made the import wait
// ~115 ms at its end, where flushed while the import still computes the last sync takes a fraction.
// A flush that fails is not an error here: the sync before publishing is the one that counts.
import { close, fdatasync, openSync } from 'node:fs';

export class BackgroundSync {
  private fd: number | null;
  private flushing = false;
  private released = false;

  /** `path`: the file, already created by its writer. */
  constructor(path: string) {
    this.fd = openSync(path, 'r');
  }

  /** Starts flushing what has been written so far, unless a flush is still running. */
  flush(): void {
    if (this.flushing || this.released || this.fd === null) return;
    this.flushing = true;
    fdatasync(this.fd, () => {
      this.flushing = false;
      if (this.released) this.closeFile();
    });
  }

  /**
   * No more flushes; the file is closed now, or when the running flush ends. Call it once the
   * writer has closed its own handle: SQLite's POSIX locks on a file go with any of the process's
   * descriptors of it that is closed.
   */
  release(): void {
    this.released = true;
    if (!this.flushing) this.closeFile();
  }

  /** Whether the file is still open here (tests read it). */
  get open(): boolean {
    return this.fd !== null;
  }

  private closeFile(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) close(fd, () => {});
  }
}
