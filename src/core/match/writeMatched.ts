// Writes the matched file: each of the customer's rows exactly as its bytes were (cells, quotes and
// line break), then the delimiter, MATCH and the asked fields. Written a chunk of rows at a time as
// they are matched, under a temporary name beside the target, then synced and renamed
// (fs/atomicFile.ts): whole or absent, a failure leaves no file.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { codeLabel } from '../../shared/codebook';
import { partialPathFor, publishFile, randomTag } from '../fs/atomicFile';
import type { CustomerChunk } from './customerFile';
import type { RowMatch } from './matchPeople';

export type ValueStyle = 'codes' | 'labels';

/** Bytes gathered before a write. */
const WRITE_CHUNK = 1 << 20;

/** A cell for this delimiter, quoted (RFC 4180) when it holds the delimiter, a quote or a line break. */
function cell(value: string, delimiter: string): string {
  if (value.includes(delimiter) || value.includes('"') || value.includes('\n') || value.includes('\r'))
    return `"${value.replace(/"/g, '""')}"`;
  return value;
}

/** What is appended to a row: MATCH and the fields' values, each led by the delimiter, as latin1 text of UTF-8 bytes. */
function appended(match: RowMatch | undefined, fields: readonly string[], style: ValueStyle, delimiter: string): string {
  const values = [match?.method ?? ''];
  fields.forEach((field, i) => {
    if (!match) return values.push('');
    const raw = match.values[i] ?? '';
    values.push(style === 'labels' ? (codeLabel(field, raw) ?? String(raw)) : String(raw));
  });
  const text = values.map((v) => delimiter + cell(v, delimiter)).join('');
  return Buffer.from(text, 'utf8').toString('latin1');
}

/**
 * Writes `out` atomically, a chunk of rows at a time: the header with MATCH and the fields (with the
 * first chunk), then every row with its match. Nothing is at `out` until publish(); discard() (or a
 * failed write) removes the partial file.
 */
export class MatchedFileWriter {
  private fd: number | null;
  private headerWritten = false;
  private pending: string[] = [];
  private size = 0;

  private constructor(
    private readonly target: string,
    private readonly partial: string,
    fd: number,
    private readonly fields: readonly string[],
    private readonly style: ValueStyle,
  ) {
    this.fd = fd;
  }

  static create(out: string, fields: readonly string[], style: ValueStyle): MatchedFileWriter {
    const target = resolve(out);
    const partial = partialPathFor(target, randomTag());
    try {
      return new MatchedFileWriter(target, partial, openSync(partial, 'wx', 0o600), fields, style);
    } catch (e) {
      throw new AppError(
        'invalid_request',
        `Cannot write ${basename(target)} in ${dirname(target)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`,
        'out',
      );
    }
  }

  /** Appends a chunk's rows (the header first, with the first chunk); `matches` in the rows' order. */
  write(chunk: CustomerChunk, matches: ReadonlyArray<RowMatch | undefined>): void {
    const { text, delimiter, header, spans } = chunk;
    try {
      // A file without a line break after its last row gets one before the next, the header's if it has one.
      const lineBreak = header.lineBreak || '\n';
      if (!this.headerWritten) {
        const names = ['MATCH', ...this.fields].map((v) => delimiter + cell(v, delimiter)).join('');
        this.put(header.cells);
        this.put(Buffer.from(names, 'utf8').toString('latin1'));
        this.put(header.lineBreak || (chunk.last && spans.length === 0 ? '' : lineBreak));
        this.headerWritten = true;
      }
      spans.forEach((span, i) => {
        this.put(text.slice(span.start, span.cellsEnd));
        this.put(appended(matches[i], this.fields, this.style, delimiter));
        const own = text.slice(span.cellsEnd, span.end);
        this.put(own || (chunk.last && i === spans.length - 1 ? '' : lineBreak));
      });
      this.flush();
    } catch (e) {
      this.discard();
      throw e;
    }
  }

  /** Syncs the complete file and renames it over the target. */
  publish(): void {
    try {
      this.flush();
      closeSync(this.fd!);
      this.fd = null;
      publishFile(this.partial, this.target);
    } catch (e) {
      this.discard();
      throw e;
    }
  }

  /** Removes the partial file; the target is left as it was. */
  discard(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.partial, { force: true });
  }

  private put(s: string): void {
    this.pending.push(s);
    this.size += s.length;
    if (this.size >= WRITE_CHUNK) this.flush();
  }

  private flush(): void {
    if (this.size === 0) return;
    const bytes = Buffer.from(this.pending.join(''), 'latin1');
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd!, bytes, at);
    this.pending = [];
    this.size = 0;
  }
}
