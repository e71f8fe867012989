// The engine interface: what the audience service needs from a store of records, whatever holds
// them (the embedded dataset file today; a server engine can implement the same). Audiences arrive
// normalized (src/shared/audienceRequest.ts), so an engine trusts its input. Results may be promises,
// so an engine that asks another process fits; the embedded one answers synchronously.
import type { NormalizedAudience } from '../../shared/audienceRequest';
import type { PreviewRecord, StateCount, ValueCount } from '../../shared/contract';

export type Audience = Pick<NormalizedAudience, 'state' | 'filters'>;
export type Awaitable<T> = T | Promise<T>;

export interface DatasetSummary {
  /** What the engine reads: a dataset file's path, or a server's address. */
  source: string;
  records: number;
  /** People a state, ascending by state code. */
  states: StateCount[];
  createdAt: string | null;
}

/** The records of one audience in PID order, a batch at a time (export). */
export interface RecordStream {
  total: number;
  /** Each record as the JSON array of its values in catalog order (src/core/dataset/recordFormat.ts). */
  batches(batchSize: number): AsyncIterable<string[]>;
}

export interface AudienceEngine {
  summary(): Awaitable<DatasetSummary>;
  count(audience: Audience): Awaitable<number>;
  /** The preview fields of the matches skip .. skip+limit-1 in PID order, and how many match. */
  previewPage(audience: Audience, skip: number, limit: number): Awaitable<{ total: number; results: PreviewRecord[] }>;
  /** As previewPage, with whole records as UTF-8 JSON arrays of their values in catalog order. */
  recordPage(audience: Audience, skip: number, limit: number): Awaitable<{ total: number; records: Buffer[] }>;
  /** How many matches hold each value of a field (catalog index), most frequent first, at most `max`. */
  valueCounts(audience: Audience, fieldIndex: number, max: number): Awaitable<ValueCount[]>;
  records(audience: Audience): Awaitable<RecordStream>;
  close(): void;
}
