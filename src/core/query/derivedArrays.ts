// Per-state arrays the engine derives from the file (coordinates, household numbers, exclusion
// marks, PID order) and keeps in one LRU with a byte budget of their own.
import type { StateOrder } from '../dataset/format/pidRanks';
import type { LruCache } from '../cache/lruCache';

/** An array over one state's positions, kept under `key` in an LRU with the other derived arrays. */
export interface Derived {
  bytes: number;
  array: Uint8Array | Uint32Array | Float64Array | StateOrder;
}

/**
 * A structure of one state's positions, built on first use and kept while it fits the budget of
 * derived arrays: national California's coordinates alone are ~460 MB, and each list excluded in it
 * ~29 MB, so keeping every one for the life of the dataset grew without bound.
 */
export function keptPerState<T extends Derived['array']>(kept: LruCache<Derived>, key: string, build: () => T): T {
  const hit = kept.get(key);
  if (hit) return hit.array as T;
  const array = build();
  kept.set(key, { bytes: array.byteLength, array });
  return array;
}
