// The field catalog is the one declaration of the record fields; it must say what the user's
// field list (record-fields.tsv: all 392 fields, in the interface document's order) says.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELDS, FIELD_NAMES, fieldByName, fieldIndex } from '../src/shared/fields';

const SPEC_DIR = new URL('../../shared/spec/', import.meta.url);

function specTsvRows(): string[][] {
  return readFileSync(new URL('record-fields.tsv', SPEC_DIR), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'));
}

describe('field catalog', () => {
  it('is record-fields.tsv row for row: name, type, group and description, in order', () => {
    expect(existsSync(SPEC_DIR), 'the spec folder ../shared must sit beside the project').toBe(true);
    const rows = specTsvRows();
    expect(rows).toHaveLength(392);
    expect(FIELDS.map((f) => [f.name, f.type, f.group, f.documented])).toEqual(rows);
  });

  it('holds the interface document household row (MARRIEDCD among it) right after HHNBR, as coded strings', () => {
    const doc = readFileSync(new URL('audience-query-service.md', SPEC_DIR), 'utf8');
    const line = doc.split('\n').find((l) => l.startsWith('| HOMEOWNERC'));
    expect(line, 'the interface document lists the HOMEOWNERC ... LANGUAGECD row').toBeDefined();
    const documented = line!
      .split('|')[1]!
      .replace(/\(`M` or `S`\)/, '')
      .split(',')
      .map((s) => s.trim());
    expect(documented).toHaveLength(18);
    const first = fieldIndex('HOMEOWNERC');
    expect(first).toBe(fieldIndex('HHNBR') + 1);
    expect(FIELDS.slice(first, first + 18).map((f) => f.name)).toEqual(documented);
    expect(FIELDS.slice(first, first + 18).every((f) => f.type === 'string' && f.group === 'household')).toBe(true);
  });

  it('finds fields by name in any case and has no duplicates', () => {
    expect(new Set(FIELD_NAMES).size).toBe(FIELDS.length);
    expect(fieldIndex('gender')).toBe(FIELD_NAMES.indexOf('GENDER'));
    expect(fieldByName('cpi_travel_index')?.type).toBe('integer');
    expect(fieldByName('marriedcd')?.name).toBe('MARRIEDCD');
    expect(fieldIndex('NOPE')).toBe(-1);
  });
});
