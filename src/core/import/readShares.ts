// How staged rows are read on both cores: the input (every file, in order) is cut into two shares
// of about equal bytes, each read by its own reading thread, so that parsing, checking and building
// the vectors (three quarters of an import's work) run twice as fast. Reader 0 takes the first
// share and reader 1 the second, so every row of reader 0 comes before every row of reader 1 in
// the input: "the row read last wins" still follows the files' order.
//
// A plain file can be cut inside, at a line end: reader 1 starts there with no header, its line
// numbers counted from the file's start (countLines). Whether a line end is a row end depends on
// the quotes before it (a quoted field may hold line breaks), which only reading from the start
// tells: reader 0 reads up to the cut and checks that no row is left open there (readRows.ts); if
// one is, the cut was inside a quoted field and the import reads everything again on one reader
// (MisalignedCut). A gzip stream cannot be entered in the middle: a cut falls between files when
// one is near the middle, else inside the gzip file, both readers inflating it from its start and
// finding the same cut by the same rule (inflatedCut.ts).
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { LineCounter, type CutSide } from './inflatedCut';
import type { SourceInfo } from './sourceFile';

/** One reader's piece of one file: bytes [start, end) (compressed bytes for gzip, always whole). */
export interface FilePart {
  /** Index of the file in the import's list. */
  file: number;
  start: number;
  end: number;
  /** The file's first part: it begins with the header line. */
  header: boolean;
  /** A gzip file's part before or after the first line end at `at` inflated bytes (inflatedCut.ts). */
  inflated?: { at: number; side: CutSide };
}

/** Below this many bytes a file (or the whole input) is read by one reader: a second one would not pay for itself. */
const MIN_SPLIT_BYTES = 8 << 20;
/** How far past the middle a line end is looked for before giving up on cutting a file. */
const SEARCH_BYTES = 1 << 20;
/**
 * A gzip file is cut inside only when the nearest file boundary is farther than this share of the
 * input from the middle: cutting inside costs reader 1 the inflating of what comes before the cut.
 */
const GZIP_CUT_WHEN_OFF_BY = 0.1;
/**
 * Where inside a gzip file the cut goes, past the middle by this share of its inflated size: reader
 * 1 first inflates what comes before the cut without parsing it (~0.7 s of 200,000 rows' 6), while
 * reader 0 parses on. An estimate: on the 200k-row bench file 0, 0.03 and 0.06 were within noise.
 */
const GZIP_HEAD_START = 0.03;

/** The shares can be changed by tests (small fixtures) through AUDIENCE_DESK_IMPORT_SPLIT_BYTES. */
function minSplitBytes(): number {
  const forced = Number(process.env.AUDIENCE_DESK_IMPORT_SPLIT_BYTES);
  return Number.isInteger(forced) && forced > 0 ? forced : MIN_SPLIT_BYTES;
}

export class MisalignedCut extends Error {
  constructor() {
    super('The cut between the two readers fell inside a quoted field.');
  }
}

/** Every file whole, in order: the share of a single reader. */
export function wholeFiles(sources: readonly SourceInfo[]): FilePart[] {
  return sources.map((s, file) => ({ file, start: 0, end: s.size, header: true }));
}

/** The input as one share, or as two of about equal bytes (see above). */
export function planShares(sources: readonly SourceInfo[], readers: number): FilePart[][] {
  const all = wholeFiles(sources);
  const total = sources.reduce((sum, s) => sum + s.size, 0);
  const min = minSplitBytes();
  if (readers < 2 || total < min) return [all];
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
  const fd = openSync(source.path, 'r');
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
  const fd = openSync(source.path, 'r');
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

/**
 * Line breaks in bytes [0, end) of a plain file, counted as the row reader counts them (CRLF, LF
 * and a lone CR one each): a reader starting at `end` numbers its first line this plus one.
 */
export async function countLines(path: string, end: number): Promise<number> {
  const counter = new LineCounter();
  for await (const chunk of createReadStream(path, { start: 0, end: end - 1, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>)
    counter.add(chunk);
  return counter.total;
}
