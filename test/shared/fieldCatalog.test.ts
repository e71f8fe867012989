// The field catalog is the one declaration of the record fields; it must say what the project's field
// list (docs/spec/record-fields.tsv: all 392 fields, in record order) says, and hold the household row
// of docs/interface.md ("Records") where that page puts it. Both files are in this repository.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELDS, FIELD_NAMES, fieldByName, fieldIndex } from '../../src/shared/fields';

const DOCS_DIR = new URL('../../docs/', import.meta.url);
const FIELD_LIST = new URL('spec/record-fields.tsv', DOCS_DIR);
const INTERFACE_PAGE = new URL('interface.md', DOCS_DIR);

function fieldListRows(): string[][] {
  return readFileSync(FIELD_LIST, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'));
}

/** The cells of the table row of docs/interface.md whose fields cell starts with `HOMEOWNERC`. */
function householdRow(): string[] | undefined {
  const doc = readFileSync(INTERFACE_PAGE, 'utf8');
  const line = doc.split('\n').find((l) => /^\|[^|]*\|\s*`HOMEOWNERC`/.test(l));
  return line
    ?.split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

describe('field catalog', () => {
  it('is docs/spec/record-fields.tsv row for row: name, type, group and description, in order', () => {
    expect(existsSync(FIELD_LIST), 'docs/spec/record-fields.tsv is in the repository').toBe(true);
    const rows = fieldListRows();
    expect(rows).toHaveLength(392);
    expect(FIELDS.map((f) => [f.name, f.type, f.group, f.documented])).toEqual(rows);
  });

  it('holds the household row of docs/interface.md (MARRIEDCD among it) right after HHNBR, as coded strings', () => {
    const cells = householdRow();
    expect(cells, 'docs/interface.md lists the HOMEOWNERC ... LANGUAGECD row in its "Records" table').toBeDefined();
    const [positions, fields, type] = cells!;
    const documented = [...fields!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]);
    expect(documented).toHaveLength(18);
    expect(documented).toContain('MARRIEDCD');
    expect(type).toBe('string');
    const first = fieldIndex('HOMEOWNERC');
    expect(first).toBe(fieldIndex('HHNBR') + 1);
    expect(positions).toBe(`${first + 1}–${first + 18}`);
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
