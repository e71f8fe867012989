// V8 compiles typed-array loops on the promise that no ArrayBuffer of the process has ever been
// detached (its "ArrayBufferDetaching" protector), and throws all of that code away the first time
// one is. Building the HTTP server detaches one in a process whose scan worker runs (seen with
// --trace-protector-invalidation during Fastify's constructor, after the start-up request; no
// JavaScript transfer is involved, so it is inside Node or V8): every scan, marking and record loop
// the start-up request had compiled was thrown away and California's first page at 10M ran them
// unoptimized again (its marking 4-8 ms instead of ~1). Detaching one buffer of our own before any
// of them is compiled spends that promise up front, whatever detaches one later: the loops are
// compiled once, for good.

let spent = false;

/** Detaches a throwaway ArrayBuffer, once a process, before the serving paths are compiled. */
export function spendDetachProtector(): void {
  if (spent) return;
  spent = true;
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
}
