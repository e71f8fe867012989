// The plain definitions of a record's CSV line and JSON object, from its parsed values: what the
// fast renderers in src/core/dataset/codec/recordFormat.ts (which work on the stored text) must equal.
import { csvField, type RecordValues } from '../../src/core/dataset/codec/recordFormat';
import { FIELDS } from '../../src/shared/fields';

export function recordToCsvLine(values: RecordValues): string {
  return values.map(csvField).join(',');
}

export function recordToJson(values: RecordValues): string {
  return '{' + FIELDS.map((f, i) => `${JSON.stringify(f.name)}:${JSON.stringify(values[i])}`).join(',') + '}';
}
