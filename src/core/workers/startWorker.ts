// Starts a worker thread whose module sits beside the caller's: from source (tsx, vitest) the
// `.ts` file, loaded through tsx; from a bundle the `.js` file the bundler emitted as an entry of
// its own (electron.vite.config.ts; docs/import.md, "Desktop build"). Undefined when it cannot
// start (the file is not there, or the Worker constructor refuses): the caller then does the work
// on its own thread. Not to be imported by a worker's own module graph, or a bundler moves it into a
// chunk shared with the worker, away from the folder that holds the workers.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * `name`: the worker module's name without extension; `callerUrl`: the caller's import.meta.url
 * (the worker is looked for beside it).
 */
export function startWorker(name: string, callerUrl: string, options: Omit<WorkerOptions, 'execArgv'> = {}): Worker | undefined {
  const fromSource = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, callerUrl);
  if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return undefined;
  // Under vitest or `tsx` the loader is already there; a plain node running sources needs it added.
  const execArgv = fromSource && !process.execArgv.some((a) => a.includes('tsx')) ? [...process.execArgv, '--import', 'tsx'] : undefined;
  try {
    return new Worker(url, { ...options, execArgv });
  } catch {
    return undefined;
  }
}
