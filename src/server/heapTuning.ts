// How far V8 lets a serving process's heap grow between two full collections. V8 sets each limit at a
// factor of what was live after the last collection (between 1.1 and 4, by its own measure of how
// fast it collects), and counts memory outside its heap against it (buffers: SQLite's copy of every
// record block read, each answer's bytes). At 10M, with ~30 MB live, the main thread then paused for a
// full collection (4-15 ms) every dozen pages of records, and those pauses were the slowest 5% of
// requests: counts p95 7.8 ms against a median of 1.4. At V8's own largest factor, 4, they stop
// during steady paging (p95 4.9 ms; docs/performance.md, "What a user meets first"), for at most
// a few times the live heap more memory before a collection (~100 MB here).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's heap growing factor as a percentage over 1: 300 is a factor of 4. */
export const SERVING_HEAP_GROWING_PERCENT = 300;

let tuned = false;

/**
 * Sets the heap growing factor for this process (all its threads) to SERVING_HEAP_GROWING_PERCENT,
 * once. V8 reads the flag each time it sets a limit, so setting it after start-up takes effect at
 * the next collection. For processes that answer requests (`serve`, the desktop app's main process).
 */
export function tuneHeapForServing(): void {
  if (tuned) return;
  tuned = true;
  setFlagsFromString(`--heap-growing-percent=${SERVING_HEAP_GROWING_PERCENT}`);
}

let collect: (() => void) | undefined;

/**
 * One full collection, at the end of a serving process's start-up, just before it listens. What the
 * start-up allocated and keeps (the dataset's tables, the compiled request path, the warm-up's
 * answers) still sat in V8's young generation, and the first scavenge after it copied all of it:
 * 3-8 ms, landing on whichever of the first requests was running (a state's first page at 10M
 * once took 21 ms against 6-8 for the others). A full collection now promotes it to the old
 * generation, where no scavenge copies it again. `gc` is V8's own, exposed by --expose-gc to new
 * contexts only (the flag set here at run time), so no global `gc` appears in this one.
 */
export function collectStartupGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
