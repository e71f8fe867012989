// How the builder offers values for each field of the catalog: flags get Y / empty, integers get
// ranges (AGE its bands, src/shared/ageBands.ts), other strings their actual values; and how the
// field picker finds fields (the data dictionary's search, grouped by the dictionary's groups).
import { normalizeAudienceRequest } from '../../../shared/audienceRequest';
import { DATA_DICTIONARY, searchFields as dictionarySearch, type DictionaryEntry } from '../../../shared/dictionary';
import { fieldByName, type FieldDef } from '../../../shared/fields';

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
  /** The field's data-dictionary entry: label, group, plain description. */
  entry: DictionaryEntry;
  /** The dictionary's group ("Income and wealth"). */
  groupLabel: string;
}

const matchOf = (entry: DictionaryEntry): FieldMatch | null => {
  const def = fieldByName(entry.name);
  return def ? { def, entry, groupLabel: entry.group } : null;
};

/**
 * Fields found by the data dictionary's search (src/shared/dictionary.ts): by name, label, synonyms,
 * description and code meanings, best first ("income" finds EHI, "do not call" the DNC flags).
 * An empty query lists the catalog in order.
 */
export function searchFields(query: string, limit = 60): FieldMatch[] {
  const found = query.trim() ? rankByLabel(query, dictionarySearch(query, limit)) : DATA_DICTIONARY.slice(0, Math.max(0, limit));
  return found.map(matchOf).filter((m): m is FieldMatch => m !== null);
}

/**
 * The field the analyst named first: a label or code name equal to the query, then labels that start
 * with it, then the dictionary's order ("education" finds Education before "Interest: continuing
 * education", whose description mentions it more).
 */
export function rankByLabel(query: string, entries: readonly DictionaryEntry[]): DictionaryEntry[] {
  const q = query.trim().toLowerCase();
  const tier = (e: DictionaryEntry): number => {
    const label = e.label.toLowerCase();
    if (label === q || e.name.toLowerCase() === q) return 0;
    if (label.startsWith(q)) return 1;
    return 2;
  };
  return entries
    .map((e, i) => ({ e, i, t: tier(e) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.e);
}

/** Matches grouped by their dictionary group, groups in the order of their best match (the best field stays first). */
export function groupMatches(matches: readonly FieldMatch[]): Array<{ group: string; matches: FieldMatch[] }> {
  const groups: Array<{ group: string; matches: FieldMatch[] }> = [];
  for (const m of matches) {
    let g = groups.find((x) => x.group === m.groupLabel);
    if (!g) groups.push((g = { group: m.groupLabel, matches: [] }));
    g.matches.push(m);
  }
  return groups;
}

/**
 * Splits "25-29, 65+ 40" into its values. Spaces around a band's dash (or en dash) or before its plus belong to
 * the band ("18 - 24" is 18-24, "65 +" is 65+), not between two values.
 */
export function splitRanges(text: string): string[] {
  return text
    .replace(/\s*[-–—]\s*/g, '-')
    .replace(/\s+\+/g, '+')
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
