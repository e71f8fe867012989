// One vendor file: recognised before anything is imported (gzip by its magic bytes, not its name;
// the delimiter from the header line; the header mapped to catalog fields), then streamed through
// csv-parse one record at a time, with each record's physical start line and its text as in the file.
import { closeSync, openSync, readSync, statSync, createReadStream, type ReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { constants as zlibConstants, createGunzip, gunzipSync } from 'node:zlib';
import { parse as parseSync } from 'csv-parse/sync';
import { parse, type CsvError, type Options as ParseOptions, type Parser } from 'csv-parse';
import { AppError } from '../../shared/errors';
import { mapHeader, type HeaderMap } from './rowRules';
import type { Delimiter } from './types';

/** How much of a file is read to find its header line (compressed bytes for gzip). */
const HEAD_BYTES = 256 * 1024;
/** A row longer than this is not a row but an unclosed quote swallowing the file: the import stops. */
export const MAX_ROW_CHARS = 1024 * 1024;

export const DELIMITERS: readonly Delimiter[] = [',', '\t', '|'];

export interface SourceInfo {
  path: string;
  size: number;
  gzip: boolean;
  delimiter: Delimiter;
  header: string[];
  map: HeaderMap;
}

const fail = (message: string): AppError => new AppError('invalid_request', message, 'files');

/** The delimiter a header line uses: the most frequent of , TAB |; none or a tie is an error. */
export function detectDelimiter(file: string, headerLine: string): Delimiter {
  const counts = DELIMITERS.map((d) => headerLine.split(d).length - 1);
  const best = Math.max(...counts);
  const winners = DELIMITERS.filter((_, i) => counts[i] === best);
  if (best === 0 || winners.length > 1)
    throw fail(`${file}: cannot tell the delimiter from the header line (comma, tab or pipe); give it with --delimiter.`);
  return winners[0]!;
}

function readHead(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Recognises a file and maps its header; every problem that makes the whole file unusable is thrown here. */
export function inspectSource(path: string, forced?: Delimiter): SourceInfo {
  const size = statSync(path).size;
  const raw = readHead(path);
  const gzip = isGzip(raw);
  let head: Buffer = raw;
  if (gzip) {
    try {
      // A partial gzip stream: decompress as much as the head holds.
      head = gunzipSync(raw, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch {
      throw fail(`${path}: starts like a gzip file but cannot be decompressed.`);
    }
  }
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))
    throw fail(`${path}: is UTF-16 text; save it as UTF-8.`);
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = text.replace(/^[\r\n]+/, '');
  if (text === '') throw fail(`${path}: is empty; the first line must be a header naming the columns.`);
  const eol = text.search(/[\r\n]/);
  const wholeFile = raw.length === size; // the head is the whole file (decompressed in full if gzip)
  if (eol < 0 && !wholeFile) throw fail(`${path}: no line break in its first ${HEAD_BYTES / 1024} KB; is it a CSV file?`);
  const line = eol < 0 ? text : text.slice(0, eol);
  const delimiter = forced ?? detectDelimiter(path, line);
  let header: string[];
  try {
    header = (parseSync(line, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][])[0] ?? [];
  } catch {
    throw fail(`${path}: the header line is not valid CSV.`);
  }
  return { path, size, gzip, delimiter, header, map: mapHeader(path, header) };
}

/** One record of a file: its cells, the physical line it starts on and its text as in the file. */
export interface SourceRecord {
  cells: string[];
  line: number;
  raw: string;
}

export interface RecordStreamHandlers {
  /** Called for every record, the header included (line 1 unless blank lines precede it). */
  record(record: SourceRecord): void;
  /** A quoted field still open at the end of the file: the rest of the file, as one rejected row. */
  unclosed(record: Omit<SourceRecord, 'cells'>): void;
}

function lineBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  if (text.includes('\r')) for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text[i + 1] !== '\n') n++;
  return n;
}

/**
 * Streams a file's records through csv-parse (constant memory). csv-parse's `raw` text of a record
 * holds the blank lines skipped before it and the first character of its line ending; both are
 * taken off here and used to count physical lines (CRLF, LF and CR each end one line).
 */
export function streamRecords(
  info: SourceInfo,
  handlers: RecordStreamHandlers,
  signal: AbortSignal | undefined,
): { file: ReadStream; done: Promise<void> } {
  const file = createReadStream(info.path, { highWaterMark: 1 << 20 });
  let nextLine = 1;
  const locate = (raw: string, ended: boolean): { line: number; raw: string } => {
    let start = 0;
    while (start < raw.length && (raw.charCodeAt(start) === 10 || raw.charCodeAt(start) === 13)) start++;
    let end = raw.length;
    if (ended) {
      // A record's raw text ends with the first character of its line ending.
      const last = raw.charCodeAt(end - 1);
      if (end > start && (last === 10 || last === 13)) end--;
    } else {
      // The rest of a file after an unclosed quote: drop the file's final line ending.
      if (raw.endsWith('\r\n')) end -= 2;
      else if (raw.endsWith('\n') || raw.endsWith('\r')) end -= 1;
    }
    const body = start === 0 && end === raw.length ? raw : raw.slice(start, end);
    const line = nextLine + start;
    nextLine = line + lineBreaks(body) + 1;
    return { line, raw: body };
  };
  let failure: unknown;
  const parser: Parser = parse({
    delimiter: info.delimiter,
    bom: true,
    // A quote inside an unquoted field is a literal character (5'10" or a stray quote), as
    // spreadsheets read it; a field that opens with a quote must close it.
    relax_quotes: true,
    // Rows with the wrong field count are emitted and rejected by the row rules, not fatal here.
    relax_column_count: true,
    skip_empty_lines: true,
    raw: true,
    max_record_size: MAX_ROW_CHARS,
    // Only an unclosed quote at the end of the file is skipped (as one rejected row); on_skip throwing
    // turns every other parser error into a failure of the import.
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined, raw: string | undefined): undefined => {
      if (err?.code === 'CSV_QUOTE_NOT_CLOSED' && raw !== undefined) {
        try {
          handlers.unclosed(locate(raw, false));
        } catch (e) {
          failure = e;
          throw e;
        }
        return undefined;
      }
      throw err;
    },
  } satisfies ParseOptions);
  parser.on('data', (out: { record: string[]; raw: string }) => {
    if (failure) return;
    try {
      const where = locate(out.raw, true);
      handlers.record({ cells: out.record, line: where.line, raw: where.raw });
    } catch (e) {
      failure = e;
      parser.destroy(e as Error);
    }
  });
  const streams = info.gzip ? [file, createGunzip(), parser] : [file, parser];
  const done = new Promise<void>((resolve, reject) => {
    const settle = (err: NodeJS.ErrnoException | null | undefined): void => {
      if (failure) return reject(failure);
      if (!err) return resolve();
      if (signal?.aborted) return reject(err);
      reject(translate(info.path, err, nextLine));
    };
    // The pipeline is done when csv-parse has emitted its last record ('end'), not just consumed its input.
    let finished = false;
    let ended = false;
    parser.once('end', () => {
      ended = true;
      if (finished) settle(null);
    });
    pipeline(streams as unknown as [ReadStream, Parser], (err) => {
      if (err) return settle(err);
      finished = true;
      if (ended) settle(null);
    });
  });
  if (signal) {
    const abort = (): void => void parser.destroy(new AppError('invalid_request', 'The import was cancelled.'));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    void done.catch(() => undefined).finally(() => signal.removeEventListener('abort', abort));
  }
  return { file, done };
}

function translate(path: string, err: NodeJS.ErrnoException & { code?: string }, line: number): AppError {
  if (err instanceof AppError) return err;
  if (err.code === 'CSV_MAX_RECORD_SIZE')
    return fail(`${path}: the row starting near line ${line} is longer than ${MAX_ROW_CHARS / 1024 / 1024} MB; is a quote never closed?`);
  if (String(err.code).startsWith('Z_')) return fail(`${path}: the gzip data is damaged near line ${line} (${err.message}).`);
  if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EISDIR') return fail(`${path}: cannot be read (${err.code}).`);
  return fail(`${path}: cannot be read near line ${line}: ${err.message}`);
}
