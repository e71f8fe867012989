// What an embedded engine (embeddedEngine.ts) can be told beyond its dataset: the settings' defaults
// apply to whatever is left out; tests and benchmarks turn parts off to see the rest alone.
import type { VerifiedFiles } from '../dataset/verify/verifiedFiles';
import type { WarmupOptions } from './pidOrderWarmup';

export interface EngineOptions {
  /** Checked between filter passes and before the page read; past it the query answers 503 `unavailable`. */
  queryBudgetMs?: number;
  /** Bytes of matched positions kept for recent audiences; 0 turns the cache off (benchmarks). */
  selectionCacheBytes?: number;
  /** Whether the whole file is checked in the background after open (default: the backgroundVerify setting). */
  backgroundVerify?: boolean;
  /** Positions a state needs before its scans use a second core; 0: never (default: the scanSplitFrom setting). */
  scanSplitFrom?: number;
  /**
   * Bytes of per-state arrays read from the file (coordinates, household numbers, exclusion marks)
   * kept for later queries; default a quarter of the vectors' budget (the vectorMemoryMb setting).
   */
  derivedCacheBytes?: number;
  /** Files a whole verify found sound before: such a file is not verified again until it changes. */
  verifiedFiles?: VerifiedFiles;
  /** The warm-up of large states' PID orders after open (pidOrderWarmup.ts); false: none. */
  pidOrderWarmup?: false | Omit<WarmupOptions, 'budgetBytes'>;
  /** Ranks a walk through a stored PID order counts at once (storedPidOrder.ts: 65,536); tests use few, so small states walk many. */
  walkStretch?: number;
  /**
   * Whether ready() reads the first requests' parts of the file ahead only when the OS has not cached
   * it (the default: fileCacheProbe.ts says why) or always (tests, whose files are always cached).
   */
  fileReadAhead?: 'when-cold' | 'always';
  /** Filters' bits kept for counts and pages (filterBits.ts; defaults there); false: none, every filter reads its vector. */
  filterBits?: false | { budgetBytes?: number; fromPeople?: number };
}
