// Runs bench/exportChild.ts (one export in a process of its own, so its peak memory is the
// export's alone) and reads the JSON line it prints last.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export interface ChildExport {
  records: number;
  seconds: number;
  maxRssMb: number;
}

export function exportInChild(datasetPath: string, state: string, outPath: string): ChildExport {
  const output = execFileSync('tsx', [join(import.meta.dirname, 'exportChild.ts'), datasetPath, state, outPath], { encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').at(-1)!) as ChildExport;
}
