// The field catalog is the one declaration of the record fields; it must say what the user's
// documents say. record-fields.tsv lists 374 of them; the interface document's household table has
// one more row of 18 coded fields (MARRIEDCD among them) that the TSV's conversion dropped. The
// catalog holds both, in the document's order (docs/api.md, "Fields", says why).
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

/** The interface document's household row that the TSV lacks, read from the document itself. */
function documentedHouseholdRow(): string[] {
  const doc = readFileSync(new URL('audience-query-service.md', SPEC_DIR), 'utf8');
  const line = doc.split('\n').find((l) => l.startsWith('| HOMEOWNERC'));
  expect(line, 'the interface document lists the HOMEOWNERC ... LANGUAGECD row').toBeDefined();
  return line!
    .split('|')[1]!
    .replace(/\(`M` or `S`\)/, '')
    .split(',')
    .map((s) => s.trim());
}

describe('field catalog', () => {
  it('holds every row of record-fields.tsv, in order, with its type, group and description', () => {
    expect(existsSync(SPEC_DIR), 'the spec folder ../shared must sit beside the project').toBe(true);
    const rows = specTsvRows();
    expect(rows).toHaveLength(374);
    const tsvNames = new Set(rows.map((r) => r[0]));
    expect(FIELDS.filter((f) => tsvNames.has(f.name)).map((f) => [f.name, f.type, f.group, f.documented])).toEqual(rows);
  });

  it('adds exactly the interface document household row the TSV dropped, after HHNBR, as coded strings', () => {
    const extra = documentedHouseholdRow();
    expect(extra).toHaveLength(18);
    expect(extra).toContain('MARRIEDCD');
    const tsvNames = new Set(specTsvRows().map((r) => r[0]));
    const added = FIELDS.filter((f) => !tsvNames.has(f.name));
    expect(added.map((f) => f.name)).toEqual(extra);
    expect(added.every((f) => f.type === 'string' && f.group === 'household')).toBe(true);
    expect(fieldIndex('HOMEOWNERC')).toBe(fieldIndex('HHNBR') + 1);
    expect(FIELDS).toHaveLength(392);
  });

  it('finds fields by name in any case and has no duplicates', () => {
    expect(new Set(FIELD_NAMES).size).toBe(FIELDS.length);
    expect(fieldIndex('gender')).toBe(FIELD_NAMES.indexOf('GENDER'));
    expect(fieldByName('cpi_travel_index')?.type).toBe('integer');
    expect(fieldByName('marriedcd')?.name).toBe('MARRIEDCD');
    expect(fieldIndex('NOPE')).toBe(-1);
  });
});
