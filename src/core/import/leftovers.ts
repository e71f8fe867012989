// Temporary files of an import carry the pid of the process that writes them:
//   <out>.building-<pid>    the new dataset (DatasetWriter), renamed over <out> when complete
//   <out>.building-<pid>-vectors[-<name>]  vectors kept on disk while they are built (vectorSpill.ts)
//   <out>.staging-<pid>     the scratch table of accepted rows
//   .<rejects>.partial-<pid> the rejects file, renamed into place when the import succeeds
//   .<rejects>.partial-<pid>-r1  rejected rows of a second reader, appended to it at the end
// A process killed with -9 cannot remove them, so every import first removes those whose process
// is gone (src/core/fs/staleFiles.ts). A file whose pid is alive belongs to a running import (or
// generator) and is left alone.
import { basename, dirname } from 'node:path';
import { escapeRegExp, removeStaleFiles } from '../fs/staleFiles';

export function stagingPathFor(out: string, pid = process.pid): string {
  return `${out}.staging-${pid}`;
}

/** Removes temporary files left by dead imports for this target; returns their paths. */
export function removeLeftovers(out: string, rejectsPath: string): string[] {
  return [
    ...removeStaleFiles(
      dirname(out),
      new RegExp(`^${escapeRegExp(basename(out))}\\.(?:building|staging)-(\\d+)(?:-journal|-wal|-shm|-vectors(?:-\\w+)?)?$`),
    ),
    ...removeStaleFiles(dirname(rejectsPath), new RegExp(`^\\.${escapeRegExp(basename(rejectsPath))}\\.partial-(\\d+)(?:-r\\d+)?$`)),
  ];
}
