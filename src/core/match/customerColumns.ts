// The columns and rows of a customer file (customerFile.ts reads it): the header under the suppression
// lists' header rules (lists/listFile.ts) plus name columns (one full name, or first and last), and what
// each data row names, normalised. Rows that hold nothing to match by are rejects known by line number
// and reason, never by content. Cells arrive as latin1 text (one character a byte) and are decoded as
// UTF-8 only where a value is read.
import { AppError } from '../../shared/errors';
import { normalizeAddress, normalizePhone, normalizePid } from '../../shared/normalize';
import { roleOf, type Role } from '../lists/listFile';
import { normalizeName, splitFullName, type PersonName } from './personNames';

/**
 * How rows name a person: `match` (an address or a phone only with the name) or `optouts` (a phone
 * alone names its holder, as on a suppression list; an address only with the name).
 */
export type CustomerFilePurpose = 'match' | 'optouts';

type NameRole = 'fullname' | 'first' | 'last';
export type ColumnRole = Role | NameRole;

const NAME_ROLES: ReadonlyMap<string, NameRole> = new Map<string, NameRole>([
  ...['NAME', 'FULLNAME', 'CUSTOMERNAME', 'CONTACTNAME', 'PERSONNAME'].map((h) => [h, 'fullname'] as const),
  ...['FIRSTNAME', 'FNAME', 'FIRST', 'GIVENNAME', 'FORENAME'].map((h) => [h, 'first'] as const),
  ...['LASTNAME', 'LNAME', 'LAST', 'SURNAME', 'FAMILYNAME'].map((h) => [h, 'last'] as const),
]);

/** A header cell's role: a suppression-list column, a name column, or none. */
export function columnRole(header: string): ColumnRole | undefined {
  return roleOf(header) ?? NAME_ROLES.get(header.toUpperCase().replace(/[^A-Z0-9]/g, ''));
}

/** One data row: its line number and what it names, normalised. */
export interface CustomerRow {
  line: number;
  pid: string | null;
  phones: string[];
  address: string | null;
  name: PersonName;
}

/** A cell's text as the customer wrote it (UTF-8), from its latin1 bytes. */
export const decoded = (cell: string): string => (/[\x80-\xff]/.test(cell) ? Buffer.from(cell, 'latin1').toString('utf8') : cell);

/** The header's column roles, checked: a file that names nothing to match by is refused with a sentence. */
export function checkHeader(
  roles: Array<ColumnRole | undefined>,
  name: string,
  purpose: CustomerFilePurpose,
): Array<ColumnRole | undefined> {
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

/** What a data row names, normalised, and why it is a reject (null when it is not). */
export function readRow(
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
