// The native heap written ahead (query/nativeHeapAhead.ts, nativeHeapPages.ts, nativeHeapWorker.ts):
// where it applies, how the pieces are cut, written and freed (here and on the thread), and, on Linux
// with glibc, that it does what it is for: a fresh process whose heap was written ahead takes the
// blob-sized buffers of its first requests without faulting their pages in.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keepsFreedHeap, NATIVE_HEAP_AHEAD_BYTES, nativeHeapPieces, writeNativeHeapAhead } from '../../src/core/query/nativeHeapAhead';
import { writeAndRelease, writePages } from '../../src/core/query/nativeHeapPages';

const MB = 1024 * 1024;

it('applies in plain Node on Linux only', () => {
  expect(keepsFreedHeap('linux', { node: '22.0.0' } as NodeJS.ProcessVersions)).toBe(true);
  expect(keepsFreedHeap('linux', { node: '22.0.0', electron: '33.0.0' } as NodeJS.ProcessVersions)).toBe(false);
  expect(keepsFreedHeap('darwin', { node: '22.0.0' } as NodeJS.ProcessVersions)).toBe(false);
  expect(keepsFreedHeap('win32', { node: '22.0.0' } as NodeJS.ProcessVersions)).toBe(false);
});

it('cuts the bytes into pieces under glibc’s raised limit, and none where the allocator would not keep them', () => {
  expect(nativeHeapPieces(45 * MB, true).map((p) => p.byteLength)).toEqual([20 * MB, 20 * MB, 5 * MB]);
  expect(nativeHeapPieces(NATIVE_HEAP_AHEAD_BYTES, true).reduce((sum, p) => sum + p.byteLength, 0)).toBe(NATIVE_HEAP_AHEAD_BYTES);
  expect(nativeHeapPieces(45 * MB, false)).toEqual([]);
  expect(nativeHeapPieces(0, true)).toEqual([]);
});

it('writes a byte in each page of a piece, and nothing else', () => {
  const piece = new ArrayBuffer(2 * 4096 + 7);
  writePages(piece);
  const view = new Uint8Array(piece);
  expect([...view.keys()].filter((at) => view[at] !== 0)).toEqual([0, 4096, 8192]);
});

it('writes every piece, then frees it', () => {
  const pieces = [new ArrayBuffer(2 * 4096 + 7), new ArrayBuffer(4096)];
  expect(writeAndRelease(pieces)).toBe(3 * 4096 + 7);
  expect(pieces.map((p) => p.byteLength)).toEqual([0, 0]);
});

it('writes the heap on a thread of its own, or nothing where the allocator would not keep it', { timeout: 30_000 }, async () => {
  expect(await writeNativeHeapAhead(3 * 4096 + 1)).toBe(keepsFreedHeap() ? 3 * 4096 + 1 : 0);
});

// A child process of its own: how much of the heap is free and mapped depends on all a process did before.
const child = fileURLToPath(new URL('./nativeHeapAheadChild.ts', import.meta.url));
const faultsOfFirstBlobs = (writeAhead: boolean): number =>
  Number(execFileSync(process.execPath, ['--import', 'tsx', child, writeAhead ? 'ahead' : 'none'], { encoding: 'utf8' }).trim());

describe.runIf(keepsFreedHeap())('on Linux with glibc', () => {
  it('spares the first blob copies their faults', { timeout: 60_000 }, () => {
    const without = faultsOfFirstBlobs(false);
    const ahead = faultsOfFirstBlobs(true);
    // 30 MB of 8 KB copies is ~7,700 pages: all faulted in without, nearly none with.
    expect(without).toBeGreaterThan(5_000);
    expect(ahead).toBeLessThan(without / 5);
  });
});
