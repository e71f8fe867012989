// Reads a customer file for match and append in chunks of rows, as its bytes stream from disk
// (customerBytes.ts: plain or gzip), so memory does not grow with the file. The text is kept as its
// bytes (one latin1 character a byte) with each row's span, so the matched file gives the customer's
// cells back byte for byte, whatever their encoding. What each row names is read by
// customerColumns.ts; rejects are known by line number and reason, never by content.
//
// The rows are those papaparse finds in the whole file: the line ending is guessed from the file's
// first megabyte (as papaparse guesses it from a whole text) and then given, and the text is parsed a
// block at a time, the block's last row (perhaps cut short) carried into the next block. A row that
// ends at a line break depends only on the bytes up to that break, so each block gives the rows the
// whole text would.
import { basename } from 'node:path';
import Papa from 'papaparse';
import { AppError } from '../../shared/errors';
import { detectDelimiter } from '../lists/listFile';
import { customerFileBytes } from './customerBytes';
import { checkHeader, columnRole, decoded, readRow, type ColumnRole, type CustomerFilePurpose, type CustomerRow } from './customerColumns';

export { CUSTOMER_FILE_MAX_BYTES } from './customerBytes';
export type { CustomerFilePurpose, CustomerRow };

/** Rejects kept for the report (all are counted). */
export const CUSTOMER_REJECTS_KEPT = 20;
/**
 * Rows matched at a time. Each chunk costs one pass over the dataset's list keys
 * (query/keyedCandidates.ts), so chunks are large: a file of this many rows is one chunk.
 */
export const CUSTOMER_CHUNK_ROWS = 100_000;
/** Characters (bytes) parsed at a time. */
const PARSE_BLOCK = 1 << 20;
/** papaparse guesses the line ending from a text's first megabyte. */
const LINE_ENDING_SAMPLE = 1024 * 1024;
/** The header line is looked for this far (a file with `\r` line endings has no `\n` to end it). */
const FIRST_LINE_MAX = 16 * 1024 * 1024;
/** A row longer than this (a quote never closed) is refused rather than held. */
export const CUSTOMER_ROW_MAX_BYTES = 64 * 1024 * 1024;
const UTF8_BOM = '\xef\xbb\xbf';

export interface RowSpan {
  start: number;
  cellsEnd: number;
  end: number;
}

/** Rows of a customer file, in the file's order, with their bytes. */
export interface CustomerChunk {
  delimiter: string;
  /** The header line's bytes up to the end of its cells (the byte-order mark included), and its line break. */
  header: { cells: string; lineBreak: string };
  /** This chunk's rows' bytes one after another, as latin1 text (one character a byte). */
  text: string;
  /** Each row's span in `text`: [start, end of its cells, end with its line break). */
  spans: RowSpan[];
  rows: CustomerRow[];
  rejected: number;
  /** The chunk's first CUSTOMER_REJECTS_KEPT rejects. */
  rejects: Array<{ line: number; reason: string }>;
  /** The file's last chunk: no row follows. */
  last: boolean;
}

export interface ChunkOptions {
  /** Follow a symbolic link named as the file. */
  followLinks?: boolean;
  purpose?: CustomerFilePurpose;
  /** Rows a chunk holds (CUSTOMER_CHUNK_ROWS); tests make it small. */
  chunkRows?: number;
  /** Characters parsed at a time; tests make it small to cut rows anywhere. */
  parseBlock?: number;
}

class ChunkBuilder {
  private pieces: string[] = [];
  private length = 0;
  readonly spans: RowSpan[] = [];
  readonly rows: CustomerRow[] = [];
  rejected = 0;
  readonly rejects: Array<{ line: number; reason: string }> = [];

  add(bytes: string, cellsEnd: number, row: CustomerRow, reject: string | null): void {
    this.pieces.push(bytes);
    this.spans.push({ start: this.length, cellsEnd: this.length + cellsEnd, end: this.length + bytes.length });
    this.length += bytes.length;
    this.rows.push(row);
    if (reject === null) return;
    this.rejected++;
    if (this.rejects.length < CUSTOMER_REJECTS_KEPT) this.rejects.push({ line: row.line, reason: reject });
  }

  done(delimiter: string, header: CustomerChunk['header'], last: boolean): CustomerChunk {
    const { spans, rows, rejected, rejects } = this;
    return { delimiter, header, text: this.pieces.join(''), spans, rows, rejected, rejects, last };
  }
}

/** Where a row's cells end: before its line break (`\n`, `\r\n` or `\r`). */
function cellsEndOf(bytes: string): number {
  let end = bytes.length;
  if (bytes.charCodeAt(end - 1) === 10) end--;
  if (end > 0 && bytes.charCodeAt(end - 1) === 13) end--;
  return end;
}

/** Reads a customer file in chunks of rows; nothing is matched here. At least one chunk, the last marked. */
export async function* readCustomerChunks(path: string, options: ChunkOptions = {}): AsyncGenerator<CustomerChunk> {
  const name = basename(path);
  const purpose = options.purpose ?? 'match';
  const chunkRows = Math.max(1, options.chunkRows ?? CUSTOMER_CHUNK_ROWS);
  const parseBlock = Math.max(1, options.parseBlock ?? PARSE_BLOCK);
  const source = customerFileBytes(path, options.followLinks === true);
  let unparsed = '';
  let eof = false;
  const readMore = async (): Promise<void> => {
    const next = await source.next();
    if (next.done) eof = true;
    else unparsed += next.value.toString('latin1');
  };
  // The first megabyte (for the line ending) and the first line (for the delimiter).
  while (!eof && (unparsed.length < UTF8_BOM.length + LINE_ENDING_SAMPLE || (!unparsed.includes('\n') && unparsed.length < FIRST_LINE_MAX)))
    await readMore();
  const first = unparsed.charCodeAt(0);
  const second = unparsed.charCodeAt(1);
  if ((first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff))
    throw new AppError('invalid_request', `${name} is UTF-16 text; save it as UTF-8 (or plain CSV) and match it again.`, 'file');
  const bom = unparsed.startsWith(UTF8_BOM) ? UTF8_BOM : '';
  unparsed = unparsed.slice(bom.length);
  const delimiter = detectDelimiter(unparsed.slice(0, Math.min(FIRST_LINE_MAX, Math.max(0, unparsed.search(/\r?\n|$/)))));
  const newline = Papa.parse<string[]>(unparsed.slice(0, LINE_ENDING_SAMPLE), { delimiter, preview: 1 }).meta.linebreak as
    '\n' | '\r\n' | '\r';

  let roles: Array<ColumnRole | undefined> | null = null;
  let header: CustomerChunk['header'] = { cells: '', lineBreak: '' };
  let line = 1;
  let building = new ChunkBuilder();
  const ready: ChunkBuilder[] = [];
  const tooLong = (): AppError =>
    new AppError('invalid_request', `Line ${line} of ${name} runs over 64 MB; is a quote not closed?`, 'file');
  const visit = (bytes: string, cells: string[]): void => {
    if (bytes.length > CUSTOMER_ROW_MAX_BYTES) throw tooLong();
    const cellsEnd = cellsEndOf(bytes);
    const rowLine = line;
    for (let i = bytes.indexOf('\n'); i >= 0; i = bytes.indexOf('\n', i + 1)) line++;
    if (roles === null) {
      roles = checkHeader(
        cells.map((c) => columnRole(decoded(c))),
        name,
        purpose,
      );
      header = { cells: bom + bytes.slice(0, cellsEnd), lineBreak: bytes.slice(cellsEnd) };
      return;
    }
    // A full chunk is handed out only once a row follows it, so the last chunk is known to be last.
    if (building.rows.length === chunkRows) {
      ready.push(building);
      building = new ChunkBuilder();
    }
    const { row, reject } = readRow(cells, roles, rowLine, purpose);
    building.add(bytes, cellsEnd, row, reject);
  };

  let carry = '';
  for (;;) {
    if (carry.length > CUSTOMER_ROW_MAX_BYTES) throw tooLong();
    // A block at least as long as the carried row, so a very long row is parsed again only a few times.
    const take = Math.max(parseBlock, carry.length);
    while (!eof && unparsed.length < take) await readMore();
    const atEnd = eof && unparsed.length <= take;
    const input = carry + unparsed.slice(0, take);
    unparsed = unparsed.slice(take);
    const found: Array<{ cells: string[]; start: number; end: number }> = [];
    let start = 0;
    if (input !== '')
      Papa.parse<string[]>(input, {
        delimiter,
        newline,
        step: (result) => {
          const end = Math.min(result.meta.cursor, input.length);
          found.push({ cells: result.data, start, end });
          start = end;
        },
      });
    // The last row may go on in the next block; at the end, a last empty row after the final line break is none.
    const kept = atEnd ? found.filter((r) => !(r.start >= input.length && r.end >= input.length)) : found.slice(0, -1);
    carry = atEnd ? '' : input.slice(found.length > 0 ? found[found.length - 1]!.start : 0);
    for (const r of kept) visit(input.slice(r.start, r.end), r.cells);
    for (const full of ready.splice(0)) yield full.done(delimiter, header, false);
    if (atEnd) break;
  }
  if (roles === null) throw new AppError('invalid_request', `${name} is empty; a customer file starts with a header row.`, 'file');
  yield building.done(delimiter, header, true);
}

/** The rows of a whole customer file at once (consumer opt-outs read it so); nothing is matched here. */
export async function readCustomerFile(
  path: string,
  followLinks = false,
  purpose: CustomerFilePurpose = 'match',
): Promise<{ rows: CustomerRow[]; rejected: number; rejects: Array<{ line: number; reason: string }> }> {
  const out = { rows: [] as CustomerRow[], rejected: 0, rejects: [] as Array<{ line: number; reason: string }> };
  for await (const chunk of readCustomerChunks(path, { followLinks, purpose })) {
    for (const row of chunk.rows) out.rows.push(row);
    out.rejected += chunk.rejected;
    out.rejects.push(...chunk.rejects.slice(0, CUSTOMER_REJECTS_KEPT - out.rejects.length));
  }
  return out;
}
