// A vector's dictionary as stored: the JSON text of its values, a string array. JSON.parse of
// California's 32,019 ZIPs (256 KB) took 6-13 ms here, a third of the ZIP field's first use: it
// makes a string of each value. Text with no backslash holds no escaped quote, so no value holds a
// quote and the values are exactly the pieces between `","`: split is ~1.5 ms. Anything else
// (an escape, an empty array) goes to JSON.parse.
//
// Most first uses of a field need no value as a string at all: a filter needs the codes of the few
// values it names and how many codes there are. Every value made a string on a first use lived as
// long as the field was kept, so each young-generation collection after it copied them, on the
// thread that answers requests: with a field's first use every few pages, ~11 MB of a serve's first
// 4 s were dictionary strings copied that way, and its first collections took 8-14 ms each
// (docs/performance.md, "A field's first use without its strings"). DictionaryText answers those
// questions from the text itself; the values are made only when something reads them all (a tally
// by value, a list step).

export function parseDictionary(text: string): string[] {
  if (simpleText(text)) return text.slice(2, -2).split('","');
  const values: unknown = JSON.parse(text);
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) throw new Error('A dictionary is not an array of strings.');
  return values as string[];
}

/** A text whose quotes are all delimiters: no backslash, so no escaped quote; at least one value. */
const simpleText = (text: string): boolean => text.length >= 4 && text.startsWith('["') && text.endsWith('"]') && !text.includes('\\');

/** One field's dictionary, read from its stored text as far as it is asked. */
export class DictionaryText {
  private parsed: string[] | null = null;
  /** Where each value's opening quote is (a simple text only), found on first need. */
  private opening: Uint32Array | null = null;
  private readonly simple: boolean;

  constructor(private readonly text: string) {
    this.simple = simpleText(text);
  }

  /** Every value, in code order (made once, then kept). */
  values(): string[] {
    return (this.parsed ??= parseDictionary(this.text));
  }

  /** Whether values() has made the values (tests). */
  get made(): boolean {
    return this.parsed !== null;
  }

  /** How many codes the field has. */
  get size(): number {
    if (this.parsed || !this.simple) return this.values().length;
    return this.openingQuotes().length;
  }

  /** The code of `value`, or -1 when the dictionary does not hold it. */
  indexOf(value: string): number {
    if (this.parsed || !this.simple) return this.values().indexOf(value);
    // No value of a simple text holds a quote (or a backslash, which JSON would have escaped).
    if (value.includes('"') || value.includes('\\')) return -1;
    const needle = `"${value}"`;
    const opening = this.openingQuotes();
    // Every quote is a delimiter, and the value holds none: a match whose first quote opens a value
    // ends at that value's closing quote, so the value is exactly `value`. Matches elsewhere start at
    // a closing quote (`"` + `,` + the next value's opening quote): skipped.
    for (let at = this.text.indexOf(needle); at >= 0; at = this.text.indexOf(needle, at + 1)) {
      const code = indexOfSorted(opening, at);
      if (code >= 0) return code;
    }
    return -1;
  }

  private openingQuotes(): Uint32Array {
    if (this.opening) return this.opening;
    const text = this.text;
    // Quotes come in pairs, one pair a value: count them, then note every first of a pair.
    let quotes = 0;
    for (let at = text.indexOf('"'); at >= 0; at = text.indexOf('"', at + 1)) quotes++;
    const opening = new Uint32Array(quotes / 2);
    for (let at = text.indexOf('"'), k = 0; at >= 0; k++) {
      opening[k] = at;
      at = text.indexOf('"', text.indexOf('"', at + 1) + 1);
    }
    return (this.opening = opening);
  }
}

/** The place of `value` in the ascending `sorted`, or -1. */
function indexOfSorted(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = sorted[mid]!;
    if (at === value) return mid;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
