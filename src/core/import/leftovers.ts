// Temporary files of an import carry the pid of the process that writes them:
//   <out>.building-<pid>    the new dataset (DatasetWriter), renamed over <out> when complete
//   <out>.staging-<pid>     the scratch table of accepted rows
//   .<rejects>.partial-<pid> the rejects file, renamed into place when the import succeeds
// A process killed with -9 cannot remove them, so every import first removes those whose process
// is gone. A file whose pid is alive belongs to a running import (or generator) and is left alone.
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function stagingPathFor(out: string, pid = process.pid): string {
  return `${out}.staging-${pid}`;
}

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

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function sweep(dir: string, pattern: RegExp): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m || isProcessAlive(Number(m[1]))) continue;
    const path = join(dir, name);
    rmSync(path, { force: true });
    removed.push(path);
  }
  return removed;
}

/** Removes temporary files left by dead imports for this target; returns their paths. */
export function removeLeftovers(out: string, rejectsPath: string): string[] {
  return [
    ...sweep(dirname(out), new RegExp(`^${escapeRe(basename(out))}\\.(?:building|staging)-(\\d+)(?:-journal|-wal|-shm)?$`)),
    ...sweep(dirname(rejectsPath), new RegExp(`^\\.${escapeRe(basename(rejectsPath))}\\.partial-(\\d+)$`)),
  ];
}
