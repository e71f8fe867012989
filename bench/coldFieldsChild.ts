// Runs measureColdFields (coldFields.ts) in a process of its own and prints its result as one JSON
// line: the first-use measurement opens the file twice and starts a server, and what that leaves in
// a process (its pages, two worker threads' heaps) would count in the engine's own peak memory
// (measured apart on 27 November at 30M: the engine's workloads peaked at 440 MB alone, 779 MB after it).
// argv: <dataset> <state>.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { measureColdFields, type ColdFields } from './coldFields';

/** The first-use figures of `state`, measured by a child process (bench/coldFieldsChild.ts). */
export function measureColdFieldsInChild(datasetPath: string, state: string): ColdFields {
  const output = execFileSync('tsx', [join(import.meta.dirname, 'coldFieldsChild.ts'), datasetPath, state], { encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').at(-1)!) as ColdFields;
}

if (process.argv[1] === import.meta.filename) {
  const [datasetPath, state] = process.argv.slice(2);
  console.log(JSON.stringify(await measureColdFields(datasetPath!, state!)));
}
