// A list pasted into a filter (ZIPs, cities, counties, or any field's values), read the way an analyst
// means it: commas, semicolons, tabs and new lines always separate values; spaces separate ZIPs, and
// separate names only where the words do not make one known name together ("New York Buffalo" is two
// cities, "NEW YORK" one). Every value is checked against the values the state's people actually
// have: an unknown or out-of-state value is flagged with the reason and left out, never sent as a
// value that matches nobody. A 3-digit ZIP prefix stands for the state's ZIPs that start with it.
import { countyCodeOf, countyLabel, statesWithCounty } from '../../../shared/geography';

export interface PasteProblem {
  /** The text as pasted. */
  text: string;
  reason: string;
}

export interface PasteResult {
  /** Values to add to the filter, as the data holds them, in the order pasted, without repeats. */
  values: string[];
  problems: PasteProblem[];
  /** Well-formed values missing from a partial list of the state's values: the caller asks the dataset. */
  unsure: string[];
}

export interface KnownValues {
  /** The values the state's people have (upper case as the data holds them). */
  values: ReadonlySet<string>;
  /** False when the list is only the most common values (the field has more). */
  complete: boolean;
}

/** Splits pasted text at commas, semicolons, tabs and line breaks into trimmed, non-empty pieces. */
export function splitPasted(text: string): string[] {
  return text
    .split(/[,;\t\r\n]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The ZIPs of the list that start with a 3-digit prefix, in order. */
export function expandZipPrefix(prefix: string, zips: Iterable<string>): string[] {
  if (!/^\d{3}$/.test(prefix)) return [];
  return [...zips].filter((z) => z.startsWith(prefix)).sort();
}

/**
 * Reads one piece into names: the whole piece when it is known, otherwise the longest runs of its
 * words that are known, from the left; words that belong to no known name are returned together as
 * one unknown text, so "Brooklyn Springfeld Buffalo" flags "Springfeld" alone.
 */
export function splitNames(piece: string, isKnown: (name: string) => boolean): Array<{ text: string; known: boolean }> {
  if (isKnown(piece)) return [{ text: piece, known: true }];
  const words = piece.split(/\s+/).filter(Boolean);
  const out: Array<{ text: string; known: boolean }> = [];
  let unknown: string[] = [];
  let i = 0;
  while (i < words.length) {
    let j = words.length;
    while (j > i && !isKnown(words.slice(i, j).join(' '))) j--;
    if (j === i) {
      unknown.push(words[i]!);
      i++;
      continue;
    }
    if (unknown.length) out.push({ text: unknown.join(' '), known: false });
    unknown = [];
    out.push({ text: words.slice(i, j).join(' '), known: true });
    i = j;
  }
  if (unknown.length) out.push({ text: unknown.join(' '), known: false });
  return out;
}

function zipToken(token: string, state: string, known: KnownValues, out: PasteResult): void {
  const zip = /^(\d{5})(?:-\d{4})?$/.exec(token)?.[1];
  if (zip) {
    if (known.values.has(zip)) out.values.push(zip);
    else if (!known.complete) out.unsure.push(zip);
    else out.problems.push({ text: token, reason: `no one in ${state} lives in ZIP ${zip}` });
    return;
  }
  if (/^\d{3}$/.test(token)) {
    const zips = expandZipPrefix(token, known.values);
    if (zips.length) out.values.push(...zips);
    else out.problems.push({ text: token, reason: `no ZIP of ${state}'s people starts with ${token}` });
    return;
  }
  out.problems.push({ text: token, reason: 'not a ZIP (5 digits, or 3 for every ZIP starting with them)' });
}

function countyReason(state: string, text: string, code: string | undefined): string {
  if (code) return `no one in ${state} lives in ${countyLabel(state, code)} (county ${code})`;
  const elsewhere = statesWithCounty(text).filter((s) => s !== state);
  return elsewhere.length ? `a county of ${elsewhere.join(', ')}, not ${state}` : `not a county of ${state}`;
}

/**
 * Reads a pasted list for a filter on `field` in `state` (`where` names the states in messages when the
 * audience spans several; counties are looked up in `state`): ZIP takes 5-digit ZIPs (a ZIP+4's first
 * five) and 3-digit prefixes; CNTYCD takes county names, 3-digit county codes or 5-digit FIPS codes;
 * every other field takes its values, matched without regard to case.
 */
export function readPastedList(field: string, state: string, text: string, known: KnownValues, where = state): PasteResult {
  const out: PasteResult = { values: [], problems: [], unsure: [] };
  const pieces = splitPasted(text);
  if (field === 'ZIP') {
    for (const piece of pieces) for (const token of piece.split(/\s+/)) zipToken(token, where, known, out);
  } else if (field === 'CNTYCD') {
    const codeOf = (name: string) => countyCodeOf(state, name);
    for (const piece of pieces)
      for (const part of splitNames(piece, (name) => codeOf(name) !== undefined)) {
        const code = part.known ? codeOf(part.text) : undefined;
        if (code && known.values.has(code)) out.values.push(code);
        else if (code && !known.complete) out.unsure.push(code);
        else out.problems.push({ text: part.text, reason: countyReason(state, part.text, code) });
      }
  } else {
    const isKnown = (name: string) => known.values.has(name.toUpperCase());
    for (const piece of pieces)
      for (const part of known.complete ? splitNames(piece, isKnown) : [{ text: piece, known: isKnown(piece) }]) {
        if (part.known) out.values.push(part.text.toUpperCase());
        else if (!known.complete) out.unsure.push(part.text.toUpperCase());
        else out.problems.push({ text: part.text, reason: `no one in ${where} has this value of ${field}` });
      }
  }
  out.values = [...new Set(out.values)];
  out.unsure = [...new Set(out.unsure)].filter((v) => !out.values.includes(v));
  return out;
}
