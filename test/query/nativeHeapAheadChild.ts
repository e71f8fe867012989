// Child of nativeHeapAhead.test.ts: a fresh process, its heap written ahead by the thread the serving
// start-up starts, or not (argv[2]: ahead | none), then 30 MB of 8 KB buffers copied as better-sqlite3 copies a record
// block's blob, all kept; prints the page faults those copies took.
import { NATIVE_HEAP_AHEAD_BYTES, writeNativeHeapAhead } from '../../src/core/query/nativeHeapAhead';

if (process.argv[2] === 'ahead' && (await writeNativeHeapAhead()) !== NATIVE_HEAP_AHEAD_BYTES)
  throw new Error('the heap was not written ahead');
const blob = Buffer.alloc(8192, 7);
const kept: Buffer[] = [];
const before = process.resourceUsage().minorPageFault;
for (let i = 0; i < (30 * 1024 * 1024) / 8192; i++) kept.push(Buffer.from(blob));
console.log(process.resourceUsage().minorPageFault - before);
