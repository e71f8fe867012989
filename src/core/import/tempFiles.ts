// An import's temporary files, each named with the pid of the process that writes them:
//   <out>.building-<pid>[-vectors[-<name>]]  the new dataset and its vectors' spill files
//   <out>.staging-<pid>                      the staging file (stage/staging.ts)
//   .<rejects>.partial-<pid>[-r1]            the rejects file, and a second reader's rejected rows
// A killed import cannot remove them: every import first removes those whose process is gone.
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
