// The worker names the sources start (every startWorker('<name>', …) call), so a bundle's check can
// ask that each is an entry of its own and a new worker cannot be left out of a build.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The names every startWorker('<name>', …) call under `dir` starts. */
export function workersStartedIn(dir: string): string[] {
  const names = new Set<string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    for (const m of readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(/startWorker\('(\w+)'/g)) names.add(m[1]!);
  }
  return [...names].sort();
}
