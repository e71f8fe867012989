// The native heap a serving process's first requests fill, written ahead. Every record block a request
// reads comes back from better-sqlite3 as a new Buffer, a copy of its blob (~8 KB; a page of 100 records
// at depth reads ~100 of them), and SQLite reads the file's pages into a page cache of its own (16 MB,
// dataset.ts): both are malloc's memory. Until the process has been through a few collections, each
// such read lands on memory the process never touched, and a first touch of a 4 KB page is a fault
// (~11-22 µs a page on the slower VM of docs/performance.md): a fresh `serve` at 10M faulted in 300-700
// pages on each of its first ~17 pages of records at depth and 100-230 on each state's first page.
//
// So `serve` of a dataset file, as it starts, hands malloc memory that is already mapped: pieces taken
// from the main thread's heap, written and freed on a thread of its own (nativeHeapWorker.ts) while the
// main thread opens the dataset (~0.2 s of that thread on the slower VM, done well before the first
// request), and malloc keeps them for the requests. That relies on glibc's allocator (Linux): it would
// give freed memory at the top of its heap back to the system once more than 128 KB is free there,
// unless a freed block it had mapped for itself raised that limit (to twice the block's size; glibc
// raises it for blocks of up to 32 MB).
// Elsewhere (macOS, Windows, Electron, whose allocator is Chromium's own) nothing is written ahead.
// docs/engine.md, "Memory written ahead for first uses".
import { startWorker } from '../workers/startWorker';
import { releaseNow } from './nativeHeapPages';

/** Bytes of native heap written ahead: ~40 MB is what a fresh serve's first ~20 pages of records grew it by. */
export const NATIVE_HEAP_AHEAD_BYTES = 40 * 1024 * 1024;
/**
 * A block freed once, to raise glibc's limits: it is mapped for itself (over 128 KB) and, at just
 * under 32 MB, raises the size of blocks malloc maps for themselves to ~31.5 MB and what it lets sit
 * free at the top of its heap to ~63 MB, more than the pieces written ahead.
 */
const LIMIT_RAISING_BYTES = 31.5 * 1024 * 1024;
/** A piece of heap handed out: under the raised limit, so malloc takes it from its heap. */
const PIECE_BYTES = 20 * 1024 * 1024;
/** Whether this process's allocator keeps freed memory as this file expects: glibc's, in plain Node on Linux. */
export function keepsFreedHeap(platform = process.platform, versions: NodeJS.ProcessVersions = process.versions): boolean {
  return platform === 'linux' && !('electron' in versions);
}

/**
 * Pieces of the main thread's heap for writeAndRelease, none written yet (taking them writes nothing
 * but malloc's own header): on the thread whose heap they are, before they go to the one that writes
 * them. Empty where the allocator would not keep them (keepsFreedHeap).
 */
export function nativeHeapPieces(bytes = NATIVE_HEAP_AHEAD_BYTES, keeps = keepsFreedHeap()): ArrayBuffer[] {
  if (!keeps || bytes <= 0) return [];
  // Mapped for itself and freed at once: the limits rise before the pieces are taken.
  releaseNow(new ArrayBuffer(LIMIT_RAISING_BYTES));
  const pieces: ArrayBuffer[] = [];
  for (let left = bytes; left > 0; left -= PIECE_BYTES) pieces.push(new ArrayBuffer(Math.min(PIECE_BYTES, left)));
  return pieces;
}

/**
 * Starts the thread that writes ahead this thread's native heap (`serve` of a dataset file, as it starts).
 * Resolves with the bytes written once they are free for malloc again: 0 where nothing applies
 * (keepsFreedHeap) or no thread could start (the pieces are then freed unwritten, which maps nothing).
 */
export function writeNativeHeapAhead(bytes = NATIVE_HEAP_AHEAD_BYTES): Promise<number> {
  const pieces = nativeHeapPieces(bytes);
  if (pieces.length === 0) return Promise.resolve(0);
  const worker = startWorker('nativeHeapWorker', import.meta.url, { workerData: pieces, transferList: pieces });
  if (!worker) {
    for (const piece of pieces) releaseNow(piece);
    return Promise.resolve(0);
  }
  worker.unref();
  return new Promise((resolve) => {
    worker.once('message', (written: number) => resolve(written));
    worker.once('error', () => resolve(0));
    worker.once('exit', () => resolve(0));
  });
}
