// The real CLI as a child process, the one way tests run it: `node --import tsx src/cli/index.ts …`
// with this test process's own Node (process.execPath), from the repository's root. stdin is a pipe,
// never a terminal, and is closed at once. The answer is the exit status and everything written to
// stdout and stderr, whatever the status.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository's root: where `src/cli/index.ts` is. */
export const ROOT = resolve(import.meta.dirname, '../..');

export interface CliOptions {
  /** The child's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Kills the child (SIGKILL) after this long; the answer then has `signal` set. */
  timeoutMs?: number;
}

export interface CliResult {
  /** The exit status; -1 when a signal ended the child. */
  code: number;
  /** The signal that ended the child, if one did. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function cli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', ...args], {
      cwd: ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.stdin.end();
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({
        code: code ?? -1,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}
