// One input file: recognised before anything is imported (gzip by its magic bytes, the delimiter
// and line ending from its header line, the header mapped to record fields), then opened as a
// stream of UTF-8 text for the row parser. docs/import.md, "What files are read".
import { closeSync, readSync, createReadStream, type ReadStream } from 'node:fs';
import { pipeline, type Readable } from 'node:stream';
import { constants as zlibConstants, createGunzip, gunzipSync } from 'node:zlib';
import Papa from 'papaparse';
import { AppError } from '../../../shared/errors';
import { identityOf, openRegularFile, type FileIdentity } from '../../fs/regularFile';
import type { Delimiter, Newline } from '../types';
import type { InflatedCut } from './gzipCut';
import { mapHeader, type ColumnMap, type HeaderMap } from './rowRules';

/** How much of a file is read to find its header line (compressed bytes for gzip). */
const HEAD_BYTES = 256 * 1024;
/**
 * Bytes read from disk at a time; gzip inflates into chunks of the same size. Under V8's 128 KB
 * large-object size, so a chunk's text and the parser's joined text live in the reused young
 * generation: 1 MB chunks each took fresh pages (docs/import.md, "Memory touched once").
 */
const CHUNK_BYTES = 1 << 16;

export const DELIMITERS: readonly Delimiter[] = [',', '\t', '|'];

/** What the import knows of a file before reading its rows; plain data, so a worker thread can take it. */
export interface SourceInfo {
  path: string;
  size: number;
  gzip: boolean;
  delimiter: Delimiter;
  /** The header line's own line ending: every row of the file ends the same way (as csv-parse read files). */
  newline: Newline;
  header: string[];
  map: HeaderMap;
  /** Whether a symbolic link is followed (the CLI) or refused (the app: fs/regularFile.ts). */
  followLinks: boolean;
  /** The file inspected: every later open must find this one. */
  identity: FileIdentity;
}

const fail = (message: string): AppError => new AppError('invalid_request', message, 'files');

/** The delimiter a header line uses: the most frequent of , TAB |; none or a tie is an error. */
export function detectDelimiter(file: string, headerLine: string): Delimiter {
  const counts = DELIMITERS.map((d) => headerLine.split(d).length - 1);
  const best = Math.max(...counts);
  const winners = DELIMITERS.filter((_, i) => counts[i] === best);
  if (best === 0 || winners.length > 1)
    throw fail(
      `${file}: cannot tell the delimiter from the header line (comma, tab or pipe); choose it (the Delimiter menu in the app, --delimiter on the command line).`,
    );
  return winners[0]!;
}

function readHead(fd: number): Buffer {
  const buf = Buffer.alloc(HEAD_BYTES);
  const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
  return buf.subarray(0, n);
}

/**
 * Opens the inspected file again (the readers, the cut between them): a regular file, the same one,
 * and not through a link unless links are followed. The caller closes the descriptor.
 */
export function openSource(info: Pick<SourceInfo, 'path' | 'followLinks' | 'identity'>): number {
  return openRegularFile(info.path, { followLinks: info.followLinks, expect: info.identity, field: 'files' }).fd;
}

export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * Recognises a file and maps its header; every problem that makes the whole file unusable is thrown
 * here. A link is refused (nothing of what it names is read) unless `followLinks`.
 */
export function inspectSource(path: string, forced?: Delimiter, followLinks = false, columns?: ColumnMap): SourceInfo {
  const head = readHeader(path, forced, followLinks);
  return { ...head, map: mapHeader(path, head.header, columns) };
}

/** A file recognised and its header line read, not yet mapped (the import screen maps it with the user's choices). */
export function readHeader(path: string, forced?: Delimiter, followLinks = false): Omit<SourceInfo, 'map'> {
  const { fd, stats } = openRegularFile(path, { followLinks, field: 'files' });
  let raw: Buffer;
  try {
    raw = readHead(fd);
  } finally {
    closeSync(fd);
  }
  const size = stats.size;
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
  const newline: Newline = eol < 0 || text[eol] === '\n' ? '\n' : text[eol + 1] === '\n' ? '\r\n' : '\r';
  const delimiter = forced ?? detectDelimiter(path, line);
  // The header goes through the same parser as the rows; a header whose quotes do not close on its
  // line is caught when its row is read (it must equal this one).
  const parsed = Papa.parse<string[]>(line, { delimiter, newline, quoteChar: '"' });
  const header = parsed.data[0] ?? [];
  if (parsed.errors.length > 0 || parsed.data.length !== 1) throw fail(`${path}: the header line is not valid CSV.`);
  return { path, size, gzip, delimiter, newline, header, followLinks, identity: identityOf(stats) };
}

/**
 * A file's text, decoded chunk by chunk (a character split between chunks is decoded whole); of a
 * plain file, bytes [start, end) alone (read/splitInput.ts cuts at a line end, a character boundary);
 * of a gzip file, the inflated text before or after `cut` (gzipCut.ts), when one is given.
 */
export function openText(info: SourceInfo, start = 0, end = info.size, cut?: InflatedCut): { file: ReadStream; text: Readable } {
  if (info.gzip && (start !== 0 || end !== info.size)) throw new Error('A gzip file is read whole.');
  if (cut && !info.gzip) throw new Error('A plain file is cut by its byte range.');
  // createReadStream's `end` is inclusive; a part of nothing reads nothing.
  const range = info.gzip ? {} : { start, end: Math.max(start, end) - 1 };
  const file = createReadStream(info.path, { fd: openSource(info), highWaterMark: CHUNK_BYTES, ...range });
  // pipeline() forwards an error of the file (or of gunzip) to the stream we read, and destroys both
  // when reading stops early.
  const text = !info.gzip
    ? file
    : cut
      ? pipeline(file, createGunzip({ chunkSize: CHUNK_BYTES }), cut, () => undefined)
      : pipeline(file, createGunzip({ chunkSize: CHUNK_BYTES }), () => undefined);
  text.setEncoding('utf8');
  return { file, text };
}

/** A failure while streaming a file, as the error the import reports. */
export function readFailure(path: string, err: NodeJS.ErrnoException, line: number): AppError {
  if (err instanceof AppError) return err;
  if (String(err.code).startsWith('Z_')) return fail(`${path}: the gzip data is damaged near line ${line} (${err.message}).`);
  if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EISDIR') return fail(`${path}: cannot be read (${err.code}).`);
  return fail(`${path}: cannot be read near line ${line}: ${err.message}`);
}
