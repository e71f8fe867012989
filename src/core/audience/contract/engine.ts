// The engine interface: what the audience service needs from a store of records, whatever holds
// them (the embedded dataset file today; a server engine can implement the same). Audiences arrive
// normalized (src/shared/audienceRequest.ts), so an engine trusts its input. Results may be promises,
// so an engine that asks another process fits; the embedded one answers synchronously.
import type { NormalizedAudience } from '../../../shared/audienceRequest';
import type { AudienceSteps, FieldValue, PreviewRecord, StateCount } from '../../../shared/contract';
import { hasListControls, type ListControls, type Sample } from '../../../shared/listControls';

/**
 * People to leave out, found by a few fields of their records (a suppression list, an earlier
 * export). An engine reads those fields of the state's records once and keeps the answer.
 */
export interface RecordMatcher {
  /** Names what it matches: the same key always matches the same people of one dataset. */
  key: string;
  /** Catalog names of the fields `matches` reads, in the order it is given them. */
  fields: readonly string[];
  matches(values: ReadonlyArray<string | number>): boolean;
  /**
   * When given: no record matches unless its `field` is one of `values()` (an export's PIDs). An engine
   * can then find the candidates by the field's hashes and ask `matches` of those alone, instead of
   * reading every record of the state.
   */
  only?: { field: string; values(): Iterable<string> };
  /**
   * When given and not null: no record matches unless one of its list keys (dataset/format/listKeys.ts: the
   * hash of its normalised PID, of one of its phones, of its address) is among these. An engine with
   * list keys in its dataset then asks `matches` of those records alone.
   */
  listKeys?: () => { pid: Uint32Array; phone: Uint32Array; address: Uint32Array } | null;
}

/** List keys (dataset/format/listKeys.ts) a caller looks records up by, a kind at a time. */
export interface ListKeySets {
  pid: Uint32Array;
  phone: Uint32Array;
  address: Uint32Array;
}

/**
 * The records one of whose list keys is among some keys (match and append, docs/match.md "Speed"),
 * found and described from the dataset's vectors without reading a record.
 */
export interface KeyedCandidates {
  /** Each candidate's handle for recordValues (the embedded engine's position), state by state, ascending in each. */
  refs: Uint32Array;
  /** Each candidate's list keys, five a candidate: PID, PHONE, PHONE2, PHONE3, ADDRESS (0: no value). */
  keys: Uint32Array;
  /**
   * For each field asked, each candidate's value, exactly as its record holds it, when the field's
   * vector holds values or dictionary codes; null for a field whose vector holds hashes.
   */
  values: Array<Array<string | number> | null>;
}

/** One entry of `exclude`, resolved: another audience (a saved one, as it matches now) or a matcher. */
export type Exclusion =
  | { kind: 'audience'; key: string; audience: Audience }
  /** `withdrawn`: consumer opt-outs, left out before every step (listSteps.ts). */
  | { kind: 'people'; matcher: RecordMatcher; withdrawn?: boolean };

/**
 * `like`, resolved (docs/insight.md): the seed's people (never kept), how many to keep, and the
 * model's whole-number weights, so that a person's score is the same integer on every engine.
 */
export interface ResolvedLike {
  seed: Exclusion;
  top: number;
  /** For each field weighed (catalog index), the weight of each value held in the state; a value not listed weighs 0. */
  weights: Array<{ field: number; byValue: Map<FieldValue, number> }>;
}

/** extensions.md's list controls with exclusions resolved; `key` names them all for caches. */
export interface ResolvedControls {
  /** Within `miles` of a point (a ZIP is resolved to its centre first). */
  near: { lat: number; lon: number; miles: number } | null;
  contact: { phone: boolean; mail: boolean };
  exclusions: Exclusion[];
  /** `include`: only the people at least one of them names (none given: everyone). */
  inclusions: Exclusion[];
  like: ResolvedLike | null;
  households: 'all' | 'one';
  sample: Sample | null;
  key: string;
}

/** A state, its filters and (optionally) list controls: who an engine is asked about. */
export type Audience = Pick<NormalizedAudience, 'state' | 'filters'> & { controls?: ResolvedControls };
export type Awaitable<T> = T | Promise<T>;

/**
 * Throws when an engine is given a request's list controls unresolved (a NormalizedAudience fits
 * the Audience type): it would answer as if they were not there. resolveControls.ts resolves them.
 */
export function assertResolved(audience: Audience): void {
  const asked = (audience as { listControls?: ListControls }).listControls;
  if (asked && hasListControls(asked) && !audience.controls)
    throw new Error('The audience names list controls that were not resolved (resolveAudience) before the engine was asked.');
}

export interface DatasetSummary {
  /** What the engine reads: a dataset file's path, or a server's address. */
  source: string;
  records: number;
  /** People a state, ascending by state code. */
  states: StateCount[];
  createdAt: string | null;
}

/**
 * The records of one audience, a batch at a time (export), in the engine's storage order: the
 * embedded engine's file's (households by ZIP in a generated file, PID order in an imported one:
 * docs/dataset-format.md, "Record order"), ClickHouse's PID order.
 */
export interface RecordStream {
  total: number;
  /** Each record as the JSON array of its values in catalog order (src/core/dataset/codec/recordFormat.ts). */
  batches(batchSize: number): AsyncIterable<string[]>;
}

/** How many of an audience's people hold one combination of some fields' values (in the fields' order). */
export interface GroupCount {
  values: FieldValue[];
  count: number;
}

export interface AudienceEngine {
  summary(): Awaitable<DatasetSummary>;
  count(audience: Audience): Awaitable<number>;
  /** The count after each step of extensions.md's order (total is count's). */
  steps(audience: Audience): Awaitable<AudienceSteps>;
  /** A ZIP's centre: the mean position of the dataset's people in it; undefined for a ZIP it does not know. */
  zipCentre(zip: string): Awaitable<{ lat: number; lon: number } | undefined>;
  /** How many people of the whole dataset (every state) a matcher names. */
  countMatching(matcher: RecordMatcher): Awaitable<number>;
  /**
   * Optional (match and append's fast path): the records of every state with a list key among
   * `keys`, their keys and the values of `fields` (catalog names) that vectors hold; null when the
   * dataset has no list keys. An engine without it is asked countMatching instead.
   */
  keyedCandidates?(keys: ListKeySets, fields: readonly string[]): Awaitable<KeyedCandidates | null>;
  /** Optional, with keyedCandidates: the values of `fields` (catalog names) of the records `refs` names, in the order given. */
  recordValues?(refs: ArrayLike<number>, fields: readonly string[]): Awaitable<Array<ReadonlyArray<string | number>>>;
  /** The preview fields of the matches skip .. skip+limit-1 in PID order, and how many match. */
  previewPage(audience: Audience, skip: number, limit: number): Awaitable<{ total: number; results: PreviewRecord[] }>;
  /** As previewPage, with whole records as UTF-8 JSON arrays of their values in catalog order. */
  recordPage(audience: Audience, skip: number, limit: number): Awaitable<{ total: number; records: Buffer[] }>;
  /**
   * Whether a field (catalog index) has a different value for nearly everyone (the embedded file
   * hashes it): it has no breakdown or cross-tab worth drawing, and groupCounts is not asked of it.
   */
  isHashed(fieldIndex: number): Awaitable<boolean>;
  /**
   * How many of the audience's people (after its list controls) hold each combination of the fields'
   * values (catalog indexes of string or integer fields that are not hashed), in no particular order:
   * what breakdowns and cross-tabs (breakdown.ts, crossTab.ts) are drawn from.
   */
  groupCounts(audience: Audience, fieldIndexes: readonly number[]): Awaitable<GroupCount[]>;
  /**
   * groupCounts of each field alone, one list a field in the order given: what a profile of a hundred
   * fields and a lookalike's model need, with the audience found once for them all.
   */
  groupCountsMany(audience: Audience, fieldIndexes: readonly number[]): Awaitable<GroupCount[][]>;
  records(audience: Audience): Awaitable<RecordStream>;
  /**
   * Optional: resolves once the helpers requests will use are up (the embedded engine's scan worker),
   * so a warm-up before serving (server/warmRequestPath.ts) takes the paths requests take.
   */
  ready?(): Promise<void>;
  close(): void;
}
