// Files that appear whole or not at all: written under a temporary name beside the target (same
// folder, so the rename is atomic), synced, renamed over the target, and the folder synced so the
// rename itself survives a power cut. Used by the dataset writer, the import's rejects file and
// exports. Temporary names carry the writer's pid so the next writer can tell a killed writer's
// file from a live one's (staleFiles.ts).
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync } from 'node:fs';
import { rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Flushes a file or a folder to disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * `.<name>.partial-<pid>[-<tag>]` beside `target`: hidden, and owned by this process. `tag`
 * tells apart several partials of one process for one target (randomTag(), or a role like `r1`).
 */
export function partialPathFor(target: string, tag?: string): string {
  return join(dirname(target), `.${basename(target)}.partial-${process.pid}${tag ? `-${tag}` : ''}`);
}

/** A short random tag for partialPathFor when one process may write the same target twice at once. */
export function randomTag(): string {
  return randomBytes(4).toString('hex');
}

/** Renames a complete, synced temporary file over `target` and syncs the folder. */
export function renameIntoPlace(tempPath: string, target: string): void {
  renameSync(tempPath, target);
  fsyncPath(dirname(target));
}

/** Syncs a complete, closed temporary file, renames it over `target` and syncs the folder. */
export function publishFile(tempPath: string, target: string): void {
  fsyncPath(tempPath);
  renameIntoPlace(tempPath, target);
}

/** publishFile for a temporary file still open through a FileHandle (written in batches): it is synced and closed first. */
export async function publishHandle(handle: FileHandle, tempPath: string, target: string): Promise<void> {
  await handle.sync();
  await handle.close();
  await rename(tempPath, target);
  fsyncPath(dirname(target));
}
