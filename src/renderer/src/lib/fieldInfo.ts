// What a field is, in the analyst's words: its label, group and description from the data
// dictionary (src/shared/dictionary.ts), descriptions as plain text (no markdown marks).
import { dictionaryEntry, type DictionaryEntry } from '../../../shared/dictionary';

export type { DictionaryEntry };

/** The field's dictionary entry, or undefined for a name the catalog does not hold. */
export function fieldEntry(name: string): DictionaryEntry | undefined {
  return dictionaryEntry(name);
}

/** The field's label ("Household income"), or its name when the dictionary has none. */
export function fieldLabel(name: string): string {
  return dictionaryEntry(name)?.label ?? name;
}

/** "Household income (EHI)": the label with the code name, for titles and messages. */
export function fieldLabelWithName(name: string): string {
  const label = fieldLabel(name);
  return label === name ? name : `${label} (${name})`;
}

/** Markdown-ish description text as plain words: no backticks, emphasis marks or link syntax. */
export function plainText(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/`/g, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The field's description as plain text (the dictionary's, else the interface document's). */
export function fieldDescription(name: string, fallback = ''): string {
  return plainText(dictionaryEntry(name)?.description ?? fallback);
}
