// Reads a customer file for match and append: CSV, TSV or pipe-separated, plain or gzip, with a header
// row under the suppression lists' header rules (lists/listFile.ts) plus name columns (one full name,
// or first and last). The text is kept as its bytes (one latin1 character a byte) with each row's
// span, so the matched file gives the customer's cells back byte for byte, whatever their encoding.
// Rows that hold nothing to match by are rejects known by line number and reason, never by content.
import { closeSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Papa from 'papaparse';
import { AppError } from '../../shared/errors';
import { normalizeAddress, normalizePhone, normalizePid } from '../../shared/normalize';
import { openRegularFile } from '../fs/regularFile';
import { detectDelimiter, roleOf, type Role } from '../lists/listFile';
import { normalizeName, splitFullName, type PersonName } from './personNames';

/** A customer file, compressed or not, may be at most this big once unzipped (it is read whole). */
export const CUSTOMER_FILE_MAX_BYTES = 256 * 1024 * 1024;
/** Rejects kept for the report (all are counted). */
export const CUSTOMER_REJECTS_KEPT = 20;

type NameRole = 'fullname' | 'first' | 'last';
type ColumnRole = Role | NameRole;

const NAME_ROLES: ReadonlyMap<string, NameRole> = new Map<string, NameRole>([
  ...['NAME', 'FULLNAME', 'CUSTOMERNAME', 'CONTACTNAME', 'PERSONNAME'].map((h) => [h, 'fullname'] as const),
  ...['FIRSTNAME', 'FNAME', 'FIRST', 'GIVENNAME', 'FORENAME'].map((h) => [h, 'first'] as const),
  ...['LASTNAME', 'LNAME', 'LAST', 'SURNAME', 'FAMILYNAME'].map((h) => [h, 'last'] as const),
]);

function columnRole(header: string): ColumnRole | undefined {
  return roleOf(header) ?? NAME_ROLES.get(header.toUpperCase().replace(/[^A-Z0-9]/g, ''));
}

/** One data row: what it names, normalised, and where its bytes are. */
export interface CustomerRow {
  line: number;
  pid: string | null;
  phones: string[];
  address: string | null;
  name: PersonName;
}

export interface CustomerFile {
  /** The file's bytes as latin1 text (one character a byte), unzipped. */
  text: string;
  delimiter: string;
  /** Spans of the header and each data row: [start, end of its cells, end with its line break). */
  header: RowSpan;
  spans: RowSpan[];
  rows: CustomerRow[];
  rejected: number;
  rejects: Array<{ line: number; reason: string }>;
}

export interface RowSpan {
  start: number;
  cellsEnd: number;
  end: number;
}

const UTF8_BOM = '\xef\xbb\xbf';

function readBytes(path: string, followLinks: boolean): Buffer {
  const name = basename(path);
  let bytes: Buffer;
  try {
    const { fd, stats } = openRegularFile(path, { followLinks, field: 'file', label: name });
    try {
      if (stats.size > CUSTOMER_FILE_MAX_BYTES)
        throw new AppError('invalid_request', `${name} is over ${CUSTOMER_FILE_MAX_BYTES / 1024 / 1024} MB; split it.`, 'file');
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError('invalid_request', `Cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`, 'file');
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: CUSTOMER_FILE_MAX_BYTES });
    } catch {
      throw new AppError('invalid_request', `${name} is not a whole gzip file, or unzips to over 256 MB.`, 'file');
    }
  }
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new AppError('invalid_request', `${name} is UTF-16 text; save it as UTF-8 (or plain CSV) and match it again.`, 'file');
  return bytes;
}

/** A cell's text as the customer wrote it (UTF-8), from its latin1 bytes. */
const decoded = (cell: string): string => (/[\x80-\xff]/.test(cell) ? Buffer.from(cell, 'latin1').toString('utf8') : cell);

/** The span of each row (header first) through papaparse, with its cells. */
function eachRow(text: string, from: number, delimiter: string, visit: (cells: string[], span: RowSpan) => void): void {
  let start = from;
  const body = text.slice(from);
  Papa.parse<string[]>(body, {
    delimiter,
    step: (result) => {
      const end = from + result.meta.cursor;
      const cells = result.data;
      if (!(end >= text.length && start >= text.length)) {
        let cellsEnd = end;
        if (text.charCodeAt(cellsEnd - 1) === 10) cellsEnd--;
        if (text.charCodeAt(cellsEnd - 1) === 13) cellsEnd--;
        visit(cells, { start, cellsEnd, end });
      }
      start = end;
    },
  });
}

/**
 * How rows name a person: `match` (an address or a phone only with the name) or `optouts` (a phone
 * alone names its holder, as on a suppression list; an address only with the name).
 */
export type CustomerFilePurpose = 'match' | 'optouts';

/** Reads a customer file and what each row names; nothing is matched here. */
export function readCustomerFile(path: string, followLinks = false, purpose: CustomerFilePurpose = 'match'): CustomerFile {
  const name = basename(path);
  const text = readBytes(path, followLinks).toString('latin1');
  const from = text.startsWith(UTF8_BOM) ? UTF8_BOM.length : 0;
  const firstLine = text.slice(from, Math.max(from, text.slice(from).search(/\r?\n|$/) + from));
  const delimiter = detectDelimiter(firstLine);
  const out: CustomerFile = { text, delimiter, header: { start: 0, cellsEnd: 0, end: 0 }, spans: [], rows: [], rejected: 0, rejects: [] };
  let roles: Array<ColumnRole | undefined> | null = null;
  let line = 1;
  eachRow(text, from, delimiter, (cells, span) => {
    const rowLine = line;
    for (let i = text.indexOf('\n', span.start); i >= 0 && i < span.end; i = text.indexOf('\n', i + 1)) line++;
    if (roles === null) {
      roles = checkHeader(
        cells.map((c) => columnRole(decoded(c))),
        name,
        purpose,
      );
      out.header = { ...span, start: 0 };
      return;
    }
    out.spans.push(span);
    const row = readRow(cells, roles, rowLine, purpose);
    out.rows.push(row.row);
    if (row.reject !== null) {
      out.rejected++;
      if (out.rejects.length < CUSTOMER_REJECTS_KEPT) out.rejects.push({ line: rowLine, reason: row.reject });
    }
  });
  if (roles === null) throw new AppError('invalid_request', `${name} is empty; a customer file starts with a header row.`, 'file');
  return out;
}

function checkHeader(roles: Array<ColumnRole | undefined>, name: string, purpose: CustomerFilePurpose): Array<ColumnRole | undefined> {
  const has = new Set(roles);
  const named = has.has('fullname') || (has.has('first') && has.has('last'));
  if (!has.has('pid') && !has.has('phone') && !has.has('address'))
    throw new AppError(
      'invalid_request',
      `The first line of ${name} names no PID, PHONE or ADDRESS column; a customer file needs a header row (docs/match.md).`,
      'file',
    );
  if (has.has('address') !== has.has('zip') && !has.has('pid') && !has.has('phone'))
    throw new AppError('invalid_request', `${name} has an address column without a ZIP column, or a ZIP without an address.`, 'file');
  if (!named && !has.has('pid') && (purpose === 'match' || !has.has('phone')))
    throw new AppError(
      'invalid_request',
      `${name} has no name columns (NAME, or FIRST NAME and LAST NAME): a person is found by address or phone only with their name.`,
      'file',
    );
  return roles;
}

function readRow(
  cells: string[],
  roles: ReadonlyArray<ColumnRole | undefined>,
  line: number,
  purpose: CustomerFilePurpose,
): { row: CustomerRow; reject: string | null } {
  const row: CustomerRow = { line, pid: null, phones: [], address: null, name: { first: '', last: '' } };
  let address = '';
  let zip = '';
  let full = '';
  let first = '';
  let last = '';
  roles.forEach((role, i) => {
    const cell = (cells[i] ?? '').trim();
    if (role === undefined || cell === '') return;
    if (role === 'pid') row.pid ??= normalizePid(cell);
    else if (role === 'phone') {
      const phone = normalizePhone(cell);
      if (phone !== null && !row.phones.includes(phone)) row.phones.push(phone);
    } else if (role === 'address') address = `${decoded(cell)} ${address}`;
    else if (role === 'address2') address = `${address} ${decoded(cell)}`;
    else if (role === 'zip') zip ||= cell;
    else if (role === 'fullname') full ||= decoded(cell);
    else if (role === 'first') first ||= decoded(cell);
    else last ||= decoded(cell);
  });
  row.address = address.trim() && zip ? normalizeAddress(address, zip) : null;
  // FIRST and LAST columns win over a full name; a full name fills what they leave empty.
  const split = full ? splitFullName(full) : { first: '', last: '' };
  row.name = { first: first ? (normalizeName(first.split(/\s+/)[0]!) ?? '') : split.first, last: last ? normalizeName(last) : split.last };
  const named = row.name.first !== '' && row.name.last !== '';
  let reject: string | null = null;
  if (cells.every((c) => c.trim() === '')) reject = 'empty row';
  else if (row.pid === null && row.phones.length === 0 && row.address === null) reject = 'no valid PID, phone or address with ZIP';
  else if (purpose === 'match' && row.pid === null && !named) reject = 'no first and last name to check a phone or address against';
  else if (purpose === 'optouts' && row.pid === null && row.phones.length === 0 && !named)
    reject = 'an address without the first and last name';
  return { row, reject };
}
