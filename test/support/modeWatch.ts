// Watching the modes of the files a writer makes in a folder while they exist, not only at the end:
// a file chmod-ed to 0600 after it was written was readable by others meanwhile, and a temporary
// file (staging, spill, partial) is gone by the end. fs.watch reports each file as it is created and
// written, and the mode is read then; look() reads them all at once, from inside a code path that
// calls back while its files exist (an import's or a generation's progress). Real files, real umask.
import { lstatSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

export const modeOf = (path: string): number => lstatSync(path).mode & 0o777;

/** Sets the umask for `run`, and puts the previous one back (vitest's forks share nothing else). */
export async function withUmask<T>(mask: number, run: () => Promise<T> | T): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await run();
  } finally {
    process.umask(previous);
  }
}

export class ModeWatch {
  /** Every mode each file name was seen with, by fs.watch or look(). */
  readonly seen = new Map<string, Set<number>>();
  /** The names look() found (a deterministic sighting, where fs.watch may come too late). */
  readonly looked = new Set<string>();
  private readonly watcher: FSWatcher;

  constructor(readonly dir: string) {
    this.watcher = watch(dir, (_event, name) => {
      if (name) this.record(String(name));
    });
    this.look();
  }

  /** Reads the mode of every file in the folder now. */
  look(): void {
    for (const name of readdirSync(this.dir)) if (this.record(name)) this.looked.add(name);
  }

  /** Names seen (by either way) that match `pattern`. */
  names(pattern: RegExp): string[] {
    return [...this.seen.keys()].filter((n) => pattern.test(n));
  }

  /** "name: mode" for every sighting of a file with any mode but `mode`: [] when all were `mode`. */
  other(mode = 0o600): string[] {
    const out: string[] = [];
    for (const [name, modes] of this.seen) for (const m of modes) if (m !== mode) out.push(`${name}: ${m.toString(8).padStart(4, '0')}`);
    return out;
  }

  close(): void {
    this.look();
    this.watcher.close();
  }

  private record(name: string): boolean {
    try {
      const stats = lstatSync(join(this.dir, name));
      if (!stats.isFile()) return false;
      const modes = this.seen.get(name) ?? new Set<number>();
      modes.add(stats.mode & 0o777);
      this.seen.set(name, modes);
      return true;
    } catch {
      return false; // gone already: a file this short-lived is seen by look() or not at all
    }
  }
}
