// Background threads (the verify, the PID-order warm-up) give way to the threads that answer
// requests. Linux schedules threads one by one, and a thread's own id names it to setpriority, so a
// worker can lower its own priority alone; elsewhere (no /proc/thread-self) it keeps the process's,
// and the request gate (dataset/verify/verifyGate.ts) is what makes it yield.
import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';

/** Puts the calling thread at the lowest CPU priority where the system allows it; else does nothing. */
export function lowerOwnThreadPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: the gate still yields.
  }
}
