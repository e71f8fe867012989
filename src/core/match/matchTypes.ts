// What matching a customer file gives back, shared by the matcher that reads records
// (matchPeople.ts) and the one that answers from the dataset's vectors (vectorMatch.ts).
import type { MatchMethod } from '../../shared/customerFiles';
import type { ListKeySets } from '../audience/contract/engine';
import { LIST_MATCH_FIELDS } from '../lists/suppressionLists';

export type { MatchMethod };

/** A row's best match so far. */
export interface RowMatch {
  method: MatchMethod;
  /** The record's PID ('' when matchPeople was not asked for PIDs and did not need to read it). */
  pid: string;
  /** The asked fields' values of the matched record. */
  values: Array<string | number>;
  /** Another person matched exactly as well (the lowest PID is kept). */
  tied: boolean;
  /** The rank compared: the method's, then how well the first name agreed. */
  score: number;
}

export interface MatchOutcome {
  /** Each row's match, or undefined (same order as the rows). */
  matches: Array<RowMatch | undefined>;
  /** Rows with a candidate by address or phone whose name did not agree with anyone found. */
  refused: number;
}

/** The fields the matcher reads: a suppression list's first (an opt-out check takes them as they are), then the names. */
export const MATCH_READ_FIELDS = [...LIST_MATCH_FIELDS, 'FNAME', 'LNAME'] as const;

/**
 * Whether a record must never be matched (a consumer opt-out): given the record's MATCH_READ_FIELDS
 * values. `keys`, when it has them: no record is withheld unless one of its list keys is among these
 * (the opt-outs' RecordMatcher.listKeys), so only such records need reading.
 */
export type Withheld = (((values: ReadonlyArray<string | number>) => boolean) & { keys?: () => ListKeySets | null }) | null;
