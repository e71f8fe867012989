// One batch of stored records rendered as export lines (CSV or JSON Lines), each ending with its
// line break: what an export writes, made by a render worker (renderWorker.ts) or on the calling
// thread alike, so both ways write the same bytes.
import { storedRecordsToCsvBytes, storedRecordsToJsonLinesBytes } from '../dataset/recordFormat';

export type RenderFormat = 'csv' | 'jsonl';

export function renderBatch(format: RenderFormat, texts: readonly string[]): Buffer {
  return format === 'csv' ? storedRecordsToCsvBytes(texts) : storedRecordsToJsonLinesBytes(texts);
}
