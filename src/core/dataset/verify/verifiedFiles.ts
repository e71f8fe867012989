// Which dataset files were found sound by a whole verify, so that a file is verified once, not on
// every open: at 10M records a verify takes a core for half a minute, nationally for minutes, on a
// file that has not changed since yesterday. A file is known by what would change if it were
// rewritten or replaced (device, inode, size, modification time) and by what its writer stamped in
// it (meta checksum and created_at); any change means a verify again. Damage that leaves all of
// these alone (a bit flipped on disk) is still found where it matters, by the checksum every read
// checks (docs/dataset-format.md, "Damage"). Kept in one small JSON file in the home, written
// atomically; an unreadable one is taken as empty (the cost is one more verify).
import { readFileSync, rmSync, statSync } from 'node:fs';
import { partialPathFor, publishFile, randomTag } from '../../fs/atomicFile';
import { writePrivateFile } from '../../fs/privateFile';

/** The file in the home that keeps them. */
export const VERIFIED_DATASETS_FILE = 'verified-datasets.json';

/** Files remembered: the most recent ones (a user keeps a few datasets, not hundreds). */
const KEPT = 64;

/** What identifies a dataset file's contents for the verify (see above). */
export function verifiedIdentity(path: string, meta: Readonly<Record<string, string>>): string {
  const stats = statSync(path, { bigint: true });
  return JSON.stringify([
    String(stats.dev),
    String(stats.ino),
    String(stats.size),
    String(stats.mtimeNs),
    meta.checksum ?? null,
    meta.created_at ?? null,
  ]);
}

export class VerifiedFiles {
  constructor(
    /** The JSON file the identities are kept in. */
    readonly file: string,
  ) {}

  has(identity: string): boolean {
    return this.read().includes(identity);
  }

  /** Remembers a file found sound; a failure to write costs only a verify next time. */
  remember(identity: string): void {
    const kept = [identity, ...this.read().filter((i) => i !== identity)].slice(0, KEPT);
    const temp = partialPathFor(this.file, randomTag());
    try {
      writePrivateFile(temp, JSON.stringify(kept));
      publishFile(temp, this.file);
    } catch {
      rmSync(temp, { force: true });
    }
  }

  private read(): string[] {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter((i): i is string => typeof i === 'string') : [];
    } catch {
      return [];
    }
  }
}
