// What the app and the CLI are told about customer files matched against the dataset (docs/match.md)
// and consumer opt-out imports (docs/optouts.md): counts, line numbers and reasons, never a value.

export type MatchMethod = 'pid' | 'address' | 'phone';

export interface MatchSummary {
  rows: number;
  matched: number;
  byMethod: Record<MatchMethod, number>;
  /** Matched rows where another person matched exactly as well (the lowest PID was taken). */
  ambiguous: number;
  /** Rows with nothing to match by (their lines and reasons are in `rejects`). */
  rejected: number;
  /** Rows found by a value whose name did not agree with the person found: not matched. */
  refused: number;
  rejects: Array<{ line: number; reason: string }>;
  /** The list the matched people were kept as (`list:<id>`), or null. */
  list: string | null;
}

/**
 * A match before any row was read (and the answer when no file is written): frozen, so whoever counts
 * into it takes a copy (structuredClone) and no two matches share one summary.
 */
export const EMPTY_MATCH_SUMMARY: Readonly<MatchSummary> = Object.freeze({
  rows: 0,
  matched: 0,
  byMethod: Object.freeze({ pid: 0, address: 0, phone: 0 }),
  ambiguous: 0,
  rejected: 0,
  refused: 0,
  rejects: Object.freeze([]) as unknown as MatchSummary['rejects'],
  list: null,
});

/** One import of consumer opt-outs, as app state audits it. */
export interface OptOutImport {
  id: string;
  createdAt: string;
  rows: number;
  pids: number;
  phones: number;
  /** Names at addresses. */
  people: number;
  rejected: number;
  rejects: Array<{ line: number; reason: string }>;
  /** People of the dataset current at import whom it named; null without a dataset. */
  matched: number | null;
  /** The file name of the dataset it was matched against. */
  dataset: string | null;
  removedAt: string | null;
}
