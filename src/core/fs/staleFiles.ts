// Temporary files name the pid of the process writing them (`<out>.building-<pid>`,
// `.<name>.partial-<pid>-<hex>`, ...). A process killed with -9 cannot remove its own; the next
// writer to the same target removes those whose process is gone and leaves live ones alone.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes the files in `dir` whose name matches `pattern` (group 1: the writer's pid; a match
 * without one has no owner) and whose writer is dead, unless `keep` claims them; returns their paths.
 */
export function removeStaleFiles(
  dir: string,
  pattern: RegExp,
  keep: (path: string) => boolean = () => false,
  alive: (pid: number) => boolean = isProcessAlive,
): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m || (m[1] !== undefined && alive(Number(m[1])))) continue;
    const path = join(dir, name);
    if (keep(path)) continue;
    try {
      rmSync(path, { force: true });
      removed.push(path);
    } catch {
      // Not ours to fight over (permissions, a directory of that name): leave it.
    }
  }
  return removed;
}
