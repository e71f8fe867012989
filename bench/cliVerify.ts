// `cli verify --db FILE` on a bench's dataset file, as a user would run it: a generated file the
// verify calls damaged is a bug of the writer or the reader (issue 32 was one, found only at 30M),
// so every bench that measures a file says whether it verifies, and records it with its figures.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface CliVerify {
  /** Whether `cli verify` exited 0. */
  ok: boolean;
  /** Its one line ("ok: …" or "damaged: …"). */
  line: string;
  seconds: number;
}

const ROOT = join(import.meta.dirname, '..');

export function cliVerify(path: string): CliVerify {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'verify', '--db', path], { cwd: ROOT, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  const line = `${run.stdout}${run.stderr}`.trim() || `cli verify ended with ${run.signal ?? run.status}`;
  const result = { ok: run.status === 0, line, seconds };
  console.log(`cli verify (${seconds.toFixed(1)} s): ${line}`);
  return result;
}
