// Cutting the input (every file, in order) into two shares of about equal bytes for two readers,
// reader 0 taking the first, so "the row read last wins" still follows the files' order. A plain
// file is cut at a line end (checked by reader 0 to be a row end: readShare.ts), a gzip file by
// both readers inflating it (source/gzipCut.ts), else between files. docs/import.md, "Staged reading".
import { closeSync, readSync } from 'node:fs';
import { settings } from '../../config';
import { LineCounter, type CutSide } from '../source/gzipCut';
import { openSource, type SourceInfo } from '../source/sourceFile';

/** One reader's piece of one file: bytes [start, end) (compressed bytes for gzip, always whole). */
export interface FilePart {
  /** Index of the file in the import's list. */
  file: number;
  start: number;
  end: number;
  /** The file's first part: it begins with the header line. */
  header: boolean;
  /** A gzip file's part before or after the first line end at `at` inflated bytes (source/gzipCut.ts). */
  inflated?: { at: number; side: CutSide };
}

/** How far past the middle a line end is looked for before giving up on cutting a file. */
const SEARCH_BYTES = 1 << 20;
/**
 * A gzip file is cut inside only when the nearest file boundary is farther than this share of the
 * input from the middle: cutting inside costs reader 1 the inflating of what comes before the cut.
 */
const GZIP_CUT_WHEN_OFF_BY = 0.1;
/**
 * Where inside a gzip file the cut goes, past the middle by this share of its inflated size: reader
 * 1 first inflates what comes before the cut without parsing it, while reader 0 parses on.
 */
const GZIP_HEAD_START = 0.03;

/** Every file whole, in order: the share of a single reader. */
export function wholeFiles(sources: readonly SourceInfo[]): FilePart[] {
  return sources.map((s, file) => ({ file, start: 0, end: s.size, header: true }));
}

/** The input as one share, or as two of about equal bytes (see above). */
export function planShares(sources: readonly SourceInfo[], readers: number): FilePart[][] {
  const all = wholeFiles(sources);
  const total = sources.reduce((sum, s) => sum + s.size, 0);
  // Below this a second reader does not pay for itself (config.ts: importSplitBytes).
  if (readers < 2 || total < settings().importSplitBytes) return [all];
  const middle = total / 2;
  let before = 0;
  let f = 0;
  while (before + sources[f]!.size <= middle) before += sources[f++]!.size;
  const source = sources[f]!;
  const boundary = middle - before < before + source.size - middle ? f : f + 1;
  const offBy = Math.abs((boundary === f ? before : before + source.size) - middle) / total;
  if (source.gzip && offBy > GZIP_CUT_WHEN_OFF_BY) {
    // Inside the gzip file, at its inflated size's share of the middle (from the gzip trailer).
    const inflated = inflatedSize(source);
    const at = Math.floor(inflated * ((middle - before) / source.size + GZIP_HEAD_START));
    if (at > 0 && at < inflated)
      return [
        [...all.slice(0, f), { file: f, start: 0, end: source.size, header: true, inflated: { at, side: 'before' } }],
        [{ file: f, start: 0, end: source.size, header: false, inflated: { at, side: 'after' } }, ...all.slice(f + 1)],
      ];
  }
  // Inside file f, at the first line end past its share of the middle.
  const cut = source.gzip ? -1 : lineEndAfter(source, Math.floor(middle - before));
  if (cut > 0 && cut < source.size)
    return [
      [...all.slice(0, f), { file: f, start: 0, end: cut, header: true }],
      [{ file: f, start: cut, end: source.size, header: false }, ...all.slice(f + 1)],
    ];
  // Else at the start or the end of file f, whichever is nearer the middle, if both shares hold a file.
  if (boundary === 0 || boundary === sources.length) return [all];
  return [all.slice(0, boundary), all.slice(boundary)];
}

/** What a gzip file inflates to, as its trailer says (modulo 4 GB, of its last member only). */
function inflatedSize(source: SourceInfo): number {
  const fd = openSource(source);
  try {
    const trailer = Buffer.alloc(4);
    return readSync(fd, trailer, 0, 4, source.size - 4) === 4 ? trailer.readUInt32LE(0) : 0;
  } finally {
    closeSync(fd);
  }
}

/** The offset just past the first line end (the file's own newline) at or after `from`; -1 if none near. */
function lineEndAfter(source: SourceInfo, from: number): number {
  const newline = Buffer.from(source.newline);
  const fd = openSource(source);
  try {
    const window = Buffer.alloc(SEARCH_BYTES + newline.length);
    const n = readSync(fd, window, 0, window.length, from);
    const text = window.subarray(0, n);
    let i = text.indexOf(newline);
    // In a file whose line end is a lone CR, a CR followed by LF is not cut after: the row reader
    // would count the pair as one line break, a reader starting between them as two.
    if (source.newline === '\r') while (i >= 0 && text[i + 1] === 0x0a) i = text.indexOf(newline, i + 1);
    return i < 0 ? -1 : from + i + newline.length;
  } finally {
    closeSync(fd);
  }
}

/** Bytes countLines reads at a time, into one buffer it reuses. */
const COUNT_BYTES = 1 << 20;

/**
 * Line breaks in bytes [0, end) of a plain file, counted as the row reader counts them (CRLF, LF
 * and a lone CR one each): a reader starting at `end` numbers its first line this plus one. Read
 * into one buffer, over and over: a stream's new 1 MB chunk each time was memory never touched
 * before, and the second reader spent ~0.2 s of its start on those pages (34 MB before its cut).
 */
export function countLines(source: Pick<SourceInfo, 'path' | 'followLinks' | 'identity'>, end: number): number {
  const counter = new LineCounter();
  const fd = openSource(source);
  try {
    const buffer = Buffer.allocUnsafe(Math.min(COUNT_BYTES, Math.max(1, end)));
    for (let at = 0; at < end;) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, end - at), at);
      if (n === 0) break;
      counter.add(buffer.subarray(0, n));
      at += n;
    }
    return counter.total;
  } finally {
    closeSync(fd);
  }
}
