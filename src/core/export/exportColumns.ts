// Chosen fields with readable values (src/shared/exportFields.ts): each stored record's values at the
// chosen fields, in the order chosen, as a CSV line or a JSON Lines object, codes written as their
// codebook meanings when asked (a code the codebook does not know stays the bare code). The whole
// record with codes is not written here: exportAudience keeps the faster straight copy for it.
import { codeLabel } from '../../shared/codebook';
import { DATA_DICTIONARY } from '../../shared/dictionary';
import type { ExportOutput } from '../../shared/exportFields';
import { fieldIndex } from '../../shared/fields';
import { csvField, parseStoredValues } from '../dataset/codec/recordFormat';

export interface ColumnRenderer {
  /** The CSV header lines for these fields, each ending in CRLF. */
  csvHeader(header: 'names' | 'labels' | 'both'): string;
  render(texts: readonly string[]): Buffer;
}

const LABELS = new Map(DATA_DICTIONARY.map((e) => [e.name, e.label]));

export function columnRenderer(output: ExportOutput, format: 'csv' | 'jsonl'): ColumnRenderer {
  const { fields } = output;
  const indexes = fields.map(fieldIndex);
  // parseStoredValues reads ascending indexes; each chosen field then takes its value from there.
  const ascending = [...new Set(indexes)].sort((a, b) => a - b);
  const slot = indexes.map((i) => ascending.indexOf(i));
  const readable = output.values === 'labels';
  const value = (k: number, v: string | number): string | number => (readable ? (codeLabel(fields[k]!, v) ?? v) : v);
  const keys = fields.map((f, k) => (k === 0 ? '{' : ',') + JSON.stringify(f) + ':');

  const line = (text: string): string => {
    const values = parseStoredValues(text, ascending);
    if (!values) throw new Error('Malformed stored record.');
    if (format === 'csv') return fields.map((_, k) => csvField(value(k, values[slot[k]!]!))).join(',') + '\r\n';
    let out = '';
    for (let k = 0; k < fields.length; k++) out += keys[k] + JSON.stringify(value(k, values[slot[k]!]!));
    return (fields.length ? out + '}' : '{}') + '\n';
  };

  return {
    csvHeader(header) {
      const names = fields.map(csvField).join(',');
      const labels = fields.map((f) => csvField(LABELS.get(f) ?? f)).join(',');
      if (header === 'labels') return labels + '\r\n';
      return names + '\r\n' + (header === 'both' ? labels + '\r\n' : '');
    },
    render(texts) {
      let out = '';
      for (const text of texts) out += line(text);
      return Buffer.from(out, 'utf8');
    },
  };
}
