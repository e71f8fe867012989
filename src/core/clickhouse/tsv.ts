// ClickHouse's TabSeparated output, read back: one row a line, fields split by tabs, and the
// escapes ClickHouse writes in a string (\t \n \\ \' \0 \b \f \r and \x… for nothing else) undone.

const UNESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0', a: '\x07', v: '\v' };

/** A TSV field's text as the string it stands for. */
export function tsvUnescape(field: string): string {
  if (!field.includes('\\')) return field;
  let out = '';
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (c !== '\\' || i + 1 === field.length) {
      out += c;
      continue;
    }
    const next = field[++i]!;
    out += UNESCAPED[next] ?? next;
  }
  return out;
}

/** The rows of a TSV answer; each row's fields still escaped (unescape only the string ones). */
export function tsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    rows.push(text.slice(start, end).split('\t'));
    start = end + 1;
  }
  return rows;
}

/** Splits streamed TSV text into complete lines, keeping a line cut between chunks for the next. */
export class TsvLineSplitter {
  private rest = '';
  push(chunk: string): string[][] {
    const text = this.rest + chunk;
    const last = text.lastIndexOf('\n');
    if (last < 0) {
      this.rest = text;
      return [];
    }
    this.rest = text.slice(last + 1);
    return tsvRows(text.slice(0, last + 1));
  }
  end(): string[][] {
    const rest = this.rest;
    this.rest = '';
    return rest ? tsvRows(rest) : [];
  }
}
