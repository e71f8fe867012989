// One batch of stored records rendered as export lines (CSV or JSON Lines), each ending with its
// line break: what an export writes, made by a render worker (renderWorker.ts) or on the calling
// thread alike, so both ways write the same bytes.
import { storedRecordToCsvLine, storedRecordToJson } from '../dataset/recordFormat';

export type RenderFormat = 'csv' | 'jsonl';

export function renderBatch(format: RenderFormat, texts: readonly string[]): Buffer {
  if (texts.length === 0) return Buffer.alloc(0);
  const eol = format === 'csv' ? '\r\n' : '\n';
  const render = format === 'csv' ? storedRecordToCsvLine : storedRecordToJson;
  return Buffer.from(texts.map(render).join(eol) + eol, 'utf8');
}
