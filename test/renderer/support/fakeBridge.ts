// An in-memory stand-in for the back end, for tests whose subject is the UI logic itself (debounce,
// stale answers, what a component offers). It proves nothing about the real core: test/e2e does.
import { vi } from 'vitest';
import type { OperationName, OutputOf, InputOf } from '../../../src/shared/contract';
import type { Bridge } from '../../../src/renderer/src/bridge';

type Impl = { [K in OperationName]?: (input: InputOf<K>) => Promise<OutputOf<K>> | OutputOf<K> };

export function fakeBridge(impl: Impl = {}): Bridge & { [K in OperationName]: ReturnType<typeof vi.fn> } {
  const defaults: Impl = {
    'dataset/info': () => ({
      path: '/data/test.sqlite',
      records: 300,
      createdAt: null,
      states: [
        { state: 'CA', count: 200 },
        { state: 'TX', count: 100 },
      ],
    }),
    'audience/count': ({ filters }) => countAnswer(200 - (filters?.length ?? 0) * 50, 1.5),
    'audience/preview': () => ({ total: 0, results: [], ms: 1 }),
    'audience/breakdown': ({ field }) => ({ field, total: 200, ms: 2, values: [] }),
    'api/status': () => ({ url: 'http://127.0.0.1:4321', running: true, recent: [] }),
    'keys/list': () => [],
    'audiences/list': () => [],
  };
  const bridge: Record<string, unknown> = {};
  const names = new Set([...Object.keys(defaults), ...Object.keys(impl)]);
  for (const name of names) {
    const fn = (impl as Record<string, unknown>)[name] ?? (defaults as Record<string, unknown>)[name];
    bridge[name] = vi.fn(async (input: unknown) => (fn as (i: unknown) => unknown)(input));
  }
  return bridge as never;
}

/** A count answer whose controls did nothing: every step is the total. */
export function countAnswer(total: number, ms = 1): OutputOf<'audience/count'> {
  return {
    total,
    ms,
    steps: { filtered: total, matched: total, afterContact: total, afterExclusions: total, afterHouseholds: total, total },
  };
}

/** A promise and the functions that settle it, to control the order in which answers arrive. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
