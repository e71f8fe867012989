// Starting one of the import's worker threads (readWorker, orderWorker). From source (tsx, vitest)
// the worker is the .ts file beside this one, loaded through tsx; a bundle must emit it as
// <name>.js beside the chunk holding this module (electron.vite.config.ts lists each as an entry;
// docs/import.md). Undefined when it cannot start (AUDIENCE_DESK_IMPORT_WORKER=0, or a bundle built
// without it): the caller then does the work on its own thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export type ImportWorkerName = 'readWorker' | 'orderWorker';

export function startImportWorker(name: ImportWorkerName, workerData: unknown): Worker | undefined {
  if (process.env.AUDIENCE_DESK_IMPORT_WORKER === '0') return undefined;
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return undefined;
  let execArgv: string[] | undefined;
  if (fromSource && !process.execArgv.some((a) => a.includes('tsx'))) execArgv = [...process.execArgv, '--import', 'tsx'];
  try {
    return new Worker(url, { workerData, execArgv });
  } catch {
    return undefined;
  }
}
