// How the builder offers values for each field of the catalog: flags get Y / empty, integers get
// ranges (AGE its bands, src/shared/ageBands.ts), other strings their actual values.
import { normalizeAudienceRequest } from '../../../shared/audienceRequest';
import { FIELDS, FIELD_GROUP_LABELS, fieldByName, type FieldDef } from '../../../shared/fields';

export type FilterKind = 'flag' | 'range' | 'values' | 'none';

export function filterKind(def: FieldDef): FilterKind {
  if (def.type === 'number') return 'none';
  if (def.type === 'integer') return 'range';
  if (def.group === 'behaviour_flag' || def.documented.startsWith('string, `Y` or empty')) return 'flag';
  return 'values';
}

export function kindOf(name: string): FilterKind {
  const def = fieldByName(name);
  return def ? filterKind(def) : 'none';
}

/** How a filter value reads on a chip or a checkbox: the empty string is "(empty)". */
export function valueLabel(value: string | number): string {
  return value === '' ? '(empty)' : String(value);
}

export interface FieldMatch {
  def: FieldDef;
  groupLabel: string;
}

/** Fields whose name or group matches every word of the query, catalog order, names first. */
export function searchFields(query: string, limit = 60): FieldMatch[] {
  const words = query.trim().toUpperCase().split(/\s+/).filter(Boolean);
  const scored: Array<{ m: FieldMatch; score: number; i: number }> = [];
  FIELDS.forEach((def, i) => {
    const groupLabel = FIELD_GROUP_LABELS[def.group];
    const hay = `${def.name} ${groupLabel.toUpperCase()} ${def.group.toUpperCase()}`;
    if (!words.every((w) => hay.includes(w))) return;
    const score =
      words.length === 0 ? 2 : def.name === words[0] ? 0 : def.name.startsWith(words[0]!) ? 1 : def.name.includes(words[0]!) ? 2 : 3;
    scored.push({ m: { def, groupLabel }, score, i });
  });
  scored.sort((a, b) => a.score - b.score || a.i - b.i);
  return scored.slice(0, limit).map((s) => s.m);
}

/** Splits "25-29, 65+ 40" into its values. */
export function splitRanges(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The core's own message for a bad integer value (N, LO-HI or N+), or null when it is valid. */
export function rangeProblem(field: string, value: string): string | null {
  try {
    normalizeAudienceRequest({ state: 'CA', filters: [[field, [value]]] });
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : 'Not a valid range.';
  }
}
