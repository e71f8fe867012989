// V8 compiles typed-array loops on the promise that no ArrayBuffer of the process has ever been
// detached (its "ArrayBufferDetaching" protector), and throws all of that code away the first time
// one is. Something in the first requests does detach one (seen with --trace-protector-invalidation,
// between the start-up request and the first real one), so every scan, marking and record loop the
// start-up request had compiled was thrown away and California's first page at 10M ran them
// unoptimized again (its marking 4-8 ms instead of ~1). Detaching one buffer of our own before any
// of them is compiled spends that promise up front: the loops are compiled once, for good.

let spent = false;

/** Detaches a throwaway ArrayBuffer, once a process, before the serving paths are compiled. */
export function spendDetachProtector(): void {
  if (spent) return;
  spent = true;
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
}
