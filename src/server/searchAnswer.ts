// The search operation's answer as the HTTP API sends it.
import type { SearchAnswer } from '../core/audience/audienceService';
import { storedRecordsToJsonBytes } from '../core/dataset/codec/recordFormat';

/**
 * The search operation's body as the API sends it, built from the stored bytes without decoding
 * them, into a buffer from `allocate` (a new one by default; the server passes its kept ones).
 */
export function searchAnswerJson(answer: SearchAnswer, allocate?: (size: number) => Buffer): Buffer {
  return storedRecordsToJsonBytes(
    `{"total":${answer.total},"limit":${answer.limit},"skip":${answer.skip},"results":[`,
    answer.records,
    ']}',
    allocate,
  );
}
