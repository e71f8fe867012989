// A file stored in household order (dataset/format/pidRanks.ts) pages in PID order through each
// state's PID order, which the first page of the state builds: 45-76 ms for California at 10M,
// ~290 ms at 30M, seconds nationally, paid by the analyst's very first request after choosing a
// state. So right after open a worker builds the large states' orders, largest first, while the
// budget of derived arrays allows, and the engine keeps each as it arrives; a state asked for
// before its order arrived builds it itself, exactly as before.
import type { LruCache } from '../cache/lruCache';
import { StateOrder } from '../dataset/format/pidRanks';
import type { Dataset } from '../dataset/read/dataset';
import { datasetIdentity } from '../dataset/read/pieceFetch';
import type { VerifyGate } from '../dataset/verify/verifyGate';
import { startWorker } from '../workers/startWorker';
import type { Derived } from './derivedArrays';

/** Below this many people a state's order builds in a few milliseconds on its first page: not worth a thread. */
export const WARM_FROM = 250_000;

export interface WarmupOptions {
  /** States with at least this many people are warmed (WARM_FROM by default; tests lower it). */
  from?: number;
  /** Bytes of derived arrays the engine keeps: the warm-up fills at most half of it. */
  budgetBytes: number;
  /** Called with each state whose order arrived (tests). */
  onWarmed?: (state: string) => void;
  /** Called once the worker is done or gone (tests). */
  onFinished?: () => void;
}

/** The key under which the engine keeps a state's order (embeddedEngine.ts pidOrderOf). */
export const pidOrderKey = (state: string): string => `pidOrder|${state}`;

/** Starts the warm-up of `dataset`'s large states into `kept`; false when there is nothing to warm or no worker. */
export function warmPidOrders(dataset: Dataset, kept: LruCache<Derived>, gate: VerifyGate, options: WarmupOptions): boolean {
  if (dataset.inPidOrder) return false;
  const from = options.from ?? WARM_FROM;
  const states: string[] = [];
  let bytes = 0;
  // Two u32 arrays a person (ranks and order).
  for (const range of [...dataset.stateCounts()].sort((a, b) => b.count - a.count)) {
    if (range.count < from || bytes + range.count * 8 > options.budgetBytes / 2) break;
    states.push(range.state);
    bytes += range.count * 8;
  }
  if (states.length === 0) return false;
  const workerData = { path: dataset.path, identity: datasetIdentity(dataset.meta), states, gate: gate.buffer };
  const worker = startWorker('pidOrderWorker', import.meta.url, { workerData });
  if (!worker) return false;
  worker.unref();
  worker.on('message', (m: { state: string; ranks: Uint32Array; order: Uint32Array }) => {
    if (!dataset.isOpen) return;
    const order = new StateOrder(m.ranks, m.order);
    kept.set(pidOrderKey(m.state), { bytes: order.byteLength, array: order });
    options.onWarmed?.(m.state);
  });
  // A worker that fails leaves the first pages to build their orders.
  worker.on('error', () => undefined);
  worker.on('exit', () => options.onFinished?.());
  dataset.onClose(() => void worker.terminate());
  return true;
}
