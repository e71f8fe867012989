// Renders an export's batches on worker threads while the calling thread reads the next ones: the
// rendering (a CSV line or a JSON object a record) shares nothing with the reading, so it runs on
// the other core. Batches come back in the order they
// were sent. Without workers (a bundle built without renderWorker, or AUDIENCE_DESK_EXPORT_WORKERS=0)
// the batches are rendered on the calling thread, to the same bytes.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { settings } from '../config';
import { startWorker } from '../workers/startWorker';
import { renderBatch, type RenderFormat } from './renderBatch';
import type { RenderReply, RenderRequest } from './renderWorker';

export interface BatchRenderer {
  /** The batch's bytes, in the order batches were given (a rejected promise: the rendering failed). */
  render(texts: string[]): Promise<Uint8Array>;
  /** How many batches may wait at once: enough to keep every worker busy, few enough to keep memory flat. */
  readonly inFlight: number;
  /** Worker threads rendering (0: the calling thread renders). */
  readonly workers: number;
  close(): Promise<void>;
}

/** Render workers: one a core, at most two (the reading thread needs a core of its own too). */
const WORKERS = Math.max(1, Math.min(2, availableParallelism() - 1));

/** A renderer for `format`; `onWorkers` false (a small export) renders on the calling thread. */
export function startRenderer(format: RenderFormat, onWorkers: boolean): BatchRenderer {
  const workers: Worker[] = [];
  if (onWorkers && settings().exportWorkers)
    for (let i = 0; i < WORKERS; i++) {
      const worker = startWorker('renderWorker', import.meta.url);
      if (!worker) break;
      workers.push(worker);
    }
  if (workers.length === 0)
    return {
      inFlight: 1,
      workers: 0,
      render: (texts) => Promise.resolve(renderBatch(format, texts)),
      close: () => Promise.resolve(),
    };

  const waiting = new Map<number, { resolve: (bytes: Uint8Array) => void; reject: (e: Error) => void }>();
  let next = 0;
  let failure: Error | null = null;
  const fail = (e: Error) => {
    failure ??= e;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  for (const worker of workers) {
    worker.on('message', (reply: RenderReply) => {
      const w = waiting.get(reply.id);
      if (!w) return;
      waiting.delete(reply.id);
      if ('error' in reply) w.reject(new Error(`An export could not render its records: ${reply.error}`));
      else w.resolve(new Uint8Array(reply.buffer, 0, reply.length));
    });
    worker.on('error', (e) => fail(e));
    worker.on('exit', (code) => {
      if (waiting.size > 0) fail(new Error(`An export's render worker stopped (exit code ${code}).`));
    });
  }
  return {
    inFlight: workers.length * 2,
    workers: workers.length,
    render(texts) {
      if (failure) return Promise.reject(failure);
      const id = next++;
      const worker = workers[id % workers.length]!;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, format, texts } satisfies RenderRequest);
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
