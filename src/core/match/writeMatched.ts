// Writes the matched file: each of the customer's rows exactly as its bytes were (cells, quotes and
// line break), then the delimiter, MATCH and the asked fields. Whole or absent: written under a
// temporary name beside the target, synced and renamed (fs/atomicFile.ts); a failure leaves no file.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AppError } from '../../shared/errors';
import { codeLabel } from '../../shared/codebook';
import { partialPathFor, publishFile, randomTag } from '../fs/atomicFile';
import type { CustomerFile } from './customerFile';
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

/** Writes `out` atomically: the header with MATCH and the fields, then every row with its match. */
export function writeMatchedFile(
  out: string,
  file: CustomerFile,
  matches: ReadonlyArray<RowMatch | undefined>,
  fields: readonly string[],
  style: ValueStyle,
): void {
  const target = resolve(out);
  const partial = partialPathFor(target, randomTag());
  const { text, delimiter } = file;
  let fd: number;
  try {
    fd = openSync(partial, 'wx', 0o600);
  } catch (e) {
    throw new AppError(
      'invalid_request',
      `Cannot write ${basename(target)} in ${dirname(target)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`,
      'out',
    );
  }
  let open = true;
  let pending: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (size === 0) return;
    const bytes = Buffer.from(pending.join(''), 'latin1');
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    pending = [];
    size = 0;
  };
  const put = (s: string): void => {
    pending.push(s);
    size += s.length;
    if (size >= WRITE_CHUNK) flush();
  };
  // A file without a line break after its last row gets one before the next, the header's if it has one.
  const lineBreak = text.slice(file.header.cellsEnd, file.header.end) || '\n';
  try {
    const row = (span: { start: number; cellsEnd: number; end: number }, extra: string, last: boolean) => {
      put(text.slice(span.start, span.cellsEnd));
      put(extra);
      const own = text.slice(span.cellsEnd, span.end);
      put(own || (last ? '' : lineBreak));
    };
    const header = Buffer.from(['MATCH', ...fields].map((v) => delimiter + cell(v, delimiter)).join(''), 'utf8').toString('latin1');
    row(file.header, header, file.spans.length === 0);
    file.spans.forEach((span, i) => row(span, appended(matches[i], fields, style, delimiter), i === file.spans.length - 1));
    flush();
    open = false;
    closeSync(fd);
  } catch (e) {
    if (open) closeSync(fd);
    rmSync(partial, { force: true });
    throw e;
  }
  try {
    publishFile(partial, target);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
}
