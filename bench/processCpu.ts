// CPU time (user + system) of a process and all its descendants, from /proc (Linux): the server
// runs as `tsx` → node, so the pid we spawn is not the one doing the work. Used to report server
// CPU-ms per request, a steadier figure than requests/s on a shared machine.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function stat(pid: number): { ppid: number; ticks: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

/** CPU-ms used so far by `root` and its live descendants; null where /proc is unavailable. */
export function processTreeCpuMs(root: number): number | null {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const s = stat(pid);
    if (!s) continue;
    ticks.set(pid, s.ticks);
    const list = children.get(s.ppid) ?? [];
    list.push(pid);
    children.set(s.ppid, list);
  }
  if (!ticks.has(root)) return null;
  let total = 0;
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop()!;
    total += ticks.get(pid) ?? 0;
    todo.push(...(children.get(pid) ?? []));
  }
  return total * TICK_MS;
}
