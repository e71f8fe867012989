// CSV text fed in chunks, parsed into rows by papaparse's core Parser, each row with the line it
// starts on and its text exactly as in the file (for the rejects file). We hold the pending text
// ourselves (as papaparse's own streamers do) so a row's raw text is a slice of it, a runaway quote
// can be bounded and a malformed quote recovered at its own line. docs/import.md, "Why papaparse".
import Papa from 'papaparse';
import type { Newline } from '../types';
import { splitSimpleLine } from './quotedLines';

export interface RowSink {
  /** One row, the header included. `utf8` is false when its text held bytes that are not UTF-8. */
  row(cells: string[], line: number, utf8: boolean): void;
  /**
   * Optional: one row as its text (without its line end) instead of its cells, which are
   * splitSimpleLine(text) (quotedLines.ts): a sink that reads the cells itself spares the parser
   * making ~400 strings a row. It returns false, having taken nothing, when splitSimpleLine would
   * give null: papaparse then reads the row and it comes to row(). Without it, rows come to row().
   */
  line?(text: string, line: number, utf8: boolean): boolean;
  /** A row papaparse could not read as CSV (a quote problem): rejected whole, with its text. */
  broken(line: number, raw: string, reason: string): void;
}

export const UNCLOSED_QUOTE = 'a quoted field is never closed (the row runs to the end of the file)';
export const MALFORMED_QUOTE = 'a quoted field has text after its closing quote (a quote inside a quoted field is written "")';

const NOT_FOUND = Number.MAX_SAFE_INTEGER;
const CHANGES_IN_UPPER_CASE = /[a-z\u0080-\uffff]/;
const QUOTE = 34;
const LF = 10;

export class RowParser {
  private text = '';
  /** Text before this offset has been handed out as rows. */
  private done = 0;
  /** Physical line (1-based) at offset `done`. */
  private line = 1;
  private started = false;
  private parser: Papa.Parser;
  /** Set by a quote error inside step(): where parsing must start again. */
  private resync = -1;
  private final = false;
  /** Where the current Parser.parse call started in this.text: papaparse's error indexes count from there. */
  private parseFrom = 0;
  // Next '\n', '\r' and U+FFFD at or after the last search start: each row's line breaks are
  // counted without scanning the rest of the chunk again.
  private nextLf = -1;
  private nextCr = -1;
  private nextBad = -1;
  /** Set while papaparse reads one row for parse(): onRow then stops it after that row. */
  private papaparseRow = false;
  private rowStart = 0;
  private rowEnd = 0;
  // The core Parser's step result holds `data: [row]` (Papa.parse's handle would unwrap it).
  private readonly step = (result: Papa.ParseStepResult<string[][]>): void =>
    this.onRow(result.data[0]!, result.meta.cursor, result.errors);

  /** `start`: the physical line the text starts on, and whether it is the file's start (where a BOM may be). */
  constructor(
    private readonly delimiter: string,
    private readonly newline: Newline,
    start: { line: number; fileStart: boolean },
    private readonly sink: RowSink,
  ) {
    this.parser = this.newParser();
    this.line = start.line;
    this.started = !start.fileStart;
  }

  private upper = false;

  /**
   * Whether no character of the text being read changes in toUpperCase() (no a-z, nothing beyond
   * ASCII), so that the rows handed out now need no upper-casing: true of the app's own exports,
   * whose records are upper-case. One scan of a chunk (~0.5 ns a character) saves ~180 calls a row.
   */
  get upperCase(): boolean {
    return this.upper;
  }

  /** Characters received but not yet handed out: the unfinished last row. */
  get pending(): number {
    return this.text.length - this.done;
  }

  /** Physical line where the unfinished row starts. */
  get nextLine(): number {
    return this.line;
  }

  push(chunk: string): void {
    if (chunk === '') return;
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1); // the BOM
    }
    this.text = this.done === 0 ? this.text + chunk : this.text.slice(this.done) + chunk;
    this.done = 0;
    this.upper = !CHANGES_IN_UPPER_CASE.test(this.text);
    this.nextLf = this.nextCr = this.nextBad = -1;
    this.parse();
  }

  /** The end of the text: the last row needs no line ending, and an open quote is an error now. */
  end(): void {
    this.final = true;
    this.parse();
  }

  private newParser(): Papa.Parser {
    return new Papa.Parser({ delimiter: this.delimiter, newline: this.newline, quoteChar: '"', step: this.step });
  }

  private parse(): void {
    for (;;) {
      // Lines without quotes, and lines whose quotes only wrap whole fields, are split here
      // (splitSimpleLines); papaparse reads the first row that is anything else, and only that row,
      // so it stays the parser of every quote that needs one.
      if (this.splitSimpleLines()) return;
      const from = (this.parseFrom = this.done);
      this.resync = -1;
      this.papaparseRow = true;
      // baseIndex = from: cursors come back as offsets into this.text (error indexes do not).
      const result = this.parser.parse(from === 0 ? this.text : this.text.slice(from), from, !this.final) as Papa.ParseResult<string[]>;
      this.papaparseRow = false;
      if (this.resync >= 0) {
        this.parser = this.newParser(); // an aborted Parser stays aborted
        continue;
      }
      // A quote error in the unfinished row: handled as soon as the line of the bad quote is complete.
      const error = this.final ? undefined : result.errors.find((e) => e.code === 'InvalidQuotes');
      if (error && this.quoteError(error)) continue;
      return;
    }
  }

  private onRow(cells: string[], end: number, errors: Papa.ParseError[]): void {
    if (errors.length > 0) {
      this.quoteError(errors.find((e) => e.code === 'InvalidQuotes') ?? errors[0]!);
      this.parser.abort(); // parse() starts again at this.resync
      return;
    }
    const start = this.done;
    const text = this.text;
    // A blank line: skipped, not a row (a line holding just "" is a row of one empty field).
    if (cells.length === 1 && cells[0] === '' && (start === end || text.charCodeAt(start) !== QUOTE)) {
      this.advance(end);
      return;
    }
    const line = this.line;
    const nl = this.newline.length;
    const bodyEnd = end - start >= nl && text.startsWith(this.newline, end - nl) ? end - nl : end;
    let bad = this.nextBad;
    if (bad < start) bad = this.nextBad = indexOf(text, '\uFFFD', start);
    this.rowStart = start;
    this.rowEnd = bodyEnd;
    this.advance(end);
    this.sink.row(cells, line, bad >= bodyEnd);
    if (this.papaparseRow) {
      // One row read: the lines after it go back to splitSimpleLines (parse() starts again at resync).
      this.papaparseRow = false;
      this.resync = this.done;
      this.parser.abort();
    }
  }

  /**
   * The complete lines from `done` on whose quotes, if any, only wrap whole fields (quotedLines.ts),
   * each a row as papaparse would hand it out: to RowSink.line when the sink has it, else as cells to
   * row(). Returns true when every complete line was handled (the rest waits for more text), false
   * at the first line papaparse must read.
   */
  private splitSimpleLines(): boolean {
    const text = this.text;
    const newline = this.newline;
    const sink = this.sink;
    for (let start = this.done; ;) {
      let end = text.indexOf(newline, start);
      let next = end + newline.length;
      if (end < 0) {
        if (!this.final || start >= text.length) return true;
        end = next = text.length;
      }
      if (end > start) {
        const line = this.line;
        let bad = this.nextBad;
        if (bad < start) bad = this.nextBad = indexOf(text, '\uFFFD', start);
        this.rowStart = start;
        this.rowEnd = end;
        if (sink.line) {
          if (!sink.line(text.slice(start, end), line, bad >= end)) return false;
          this.advance(next);
        } else {
          const cells = splitSimpleLine(text, start, end, this.delimiter);
          if (!cells) return false;
          this.advance(next);
          sink.row(cells, line, bad >= end);
        }
      } else this.advance(next); // a blank line: not a row
      start = next;
    }
  }

  /** The text of the row being handed out (inside RowSink.row), as in the file, without its line ending. */
  rawRow(): string {
    return this.text.slice(this.rowStart, this.rowEnd);
  }

  /**
   * A row with a quote error, rejected whole. MissingQuotes (only at the end of the text): a quote
   * never closed; the row is the rest of the file. InvalidQuotes: a field opened with a quote is
   * closed by one that is not followed by the delimiter or the line end ("Bob" Smith). papaparse
   * would read on to the next quote that does close a field, swallowing the rows in between; here
   * the row ends with the line of that bad quote, and reading starts again on the next line.
   * Returns false when that line is not complete yet (more text needed).
   */
  private quoteError(error: Papa.ParseError): boolean {
    const text = this.text;
    const start = this.done;
    const line = this.line;
    if (error.code === 'MissingQuotes') {
      let end = text.length; // the file's last line ending is not part of the row
      if (text.endsWith('\r\n')) end -= 2;
      else if (text.endsWith('\n') || text.endsWith('\r')) end -= 1;
      const raw = text.slice(start, Math.max(start, end));
      this.advance((this.resync = text.length));
      this.sink.broken(line, raw, UNCLOSED_QUOTE);
      return true;
    }
    // The first quote after the field's opening one that is not doubled: the one that failed to close it.
    let q = text.indexOf('"', this.parseFrom + (error.index ?? 0));
    while (q >= 0 && text.charCodeAt(q + 1) === QUOTE) q = text.indexOf('"', q + 2);
    let lineEnd = text.indexOf(this.newline, Math.max(q, start) + 1);
    if (lineEnd < 0) {
      if (!this.final) return false;
      lineEnd = text.length; // the bad quote is on the last line
    }
    const raw = text.slice(start, lineEnd);
    this.advance((this.resync = Math.min(lineEnd + this.newline.length, text.length)));
    this.sink.broken(line, raw, MALFORMED_QUOTE);
    return true;
  }

  /** Moves `done` to `to`, counting the line breaks on the way (CRLF, LF and a lone CR end a line each). */
  private advance(to: number): void {
    const text = this.text;
    const from = this.done;
    let n = 0;
    let i = this.nextLf;
    if (i < from) i = indexOf(text, '\n', from);
    for (; i < to; i = indexOf(text, '\n', i + 1)) n++;
    this.nextLf = i;
    i = this.nextCr;
    if (i < from) i = indexOf(text, '\r', from);
    for (; i < to; i = indexOf(text, '\r', i + 1)) if (text.charCodeAt(i + 1) !== LF) n++;
    this.nextCr = i;
    this.line += n;
    this.done = to;
  }
}

function indexOf(text: string, char: string, from: number): number {
  const i = text.indexOf(char, from);
  return i < 0 ? NOT_FOUND : i;
}
