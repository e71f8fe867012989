// A file stored in household order (dataset/format/pidRanks.ts) pages fastest through each state's
// whole PID order. A file written before orders were stored builds it on the state's first page
// (45-76 ms for California at 10M, ~290 ms at 30M, seconds nationally, paid by the analyst's very
// first request after choosing a state); a file that stores its orders pages through the stored order
// (storedPidOrder.ts) until the whole one is here, but pages at depth then decode chunks of it again
// and again. So a worker builds the large states' whole orders, largest first, while the budget of
// derived arrays allows, and the engine keeps each as it arrives: at once after open for a file
// without stored orders, a few seconds in for one with them.
import type { LruCache } from '../cache/lruCache';
import { StateOrder } from '../dataset/format/pidRanks';
import type { Dataset } from '../dataset/read/dataset';
import { datasetIdentity } from '../dataset/read/pieceFetch';
import type { VerifyGate } from '../dataset/verify/verifyGate';
import { startWorker } from '../workers/startWorker';
import type { Derived } from './derivedArrays';

/** Below this many people a state's order builds in a few milliseconds on its first page: not worth a thread. */
export const WARM_FROM = 250_000;

/**
 * How long after open a file that stores its orders starts the warm-up: its first pages read the
 * stored order and need none, and a thread reading ranks beside the very first requests slowed them
 * (a fresh serve at 30M: California's first page 155-193 ms with it, 82-88 without); pages at depth
 * read the whole orders once they arrive (docs/performance.md, "What a user meets first").
 */
export const STORED_ORDER_DELAY_MS = 3000;

export interface WarmupOptions {
  /** States with at least this many people are warmed (WARM_FROM by default; tests lower it). */
  from?: number;
  /** How long after the call the worker starts (default: STORED_ORDER_DELAY_MS for a file that stores its orders, else at once). */
  delayMs?: number;
  /** Bytes of derived arrays the engine keeps: the warm-up fills at most half of it. */
  budgetBytes: number;
  /** Called with each state whose order arrived (tests). */
  onWarmed?: (state: string) => void;
  /** Called once the worker is done or gone (tests). */
  onFinished?: () => void;
}

/** The key under which the engine keeps a state's order (embeddedEngine.ts pidOrderOf). */
export const pidOrderKey = (state: string): string => `pidOrder|${state}`;

/** Starts (or schedules) the warm-up of `dataset`'s large states into `kept`; false when there is nothing to warm or no worker. */
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
  const delayMs = options.delayMs ?? (dataset.storesPidOrder ? STORED_ORDER_DELAY_MS : 0);
  if (delayMs === 0) return startWarmup(dataset, kept, workerData, options);
  const timer = setTimeout(() => {
    if (!dataset.isOpen || !startWarmup(dataset, kept, workerData, options)) options.onFinished?.();
  }, delayMs);
  timer.unref();
  dataset.onClose(() => clearTimeout(timer));
  return true;
}

function startWarmup(dataset: Dataset, kept: LruCache<Derived>, workerData: object, options: WarmupOptions): boolean {
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
  // No terminate(): the engine closes the gate with the dataset, and the worker stops at its next
  // state (verifyGate.ts says why a thread inside better-sqlite3 must not be terminated).
  return true;
}
