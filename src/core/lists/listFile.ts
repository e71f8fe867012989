// Reads a suppression list file: CSV, TSV or pipe-separated, UTF-8, with a header row naming its
// columns, or a single column of phones or PIDs without a header. Every data row yields a PID, a
// phone or an address (address line + ZIP), normalised, or is a reject known by its line number
// and a reason: never by its content, which is personal data. docs/list-controls.md has the format.
import { closeSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import Papa from 'papaparse';
import { AppError } from '../../shared/errors';
import { openRegularFile } from '../fs/regularFile';
import { normalizeAddress, normalizeAddressLine, normalizePhone, normalizePid, normalizeZip } from '../../shared/normalize';

/** What a row names, normalised, and what was left over. */
export interface ListFileContent {
  /** Data rows (a header is not one; a final line break does not make one). */
  rows: number;
  pids: Set<string>;
  phones: Set<string>;
  addresses: Set<string>;
  rejected: number;
  /** The first REJECTS_KEPT rejects. */
  rejects: Array<{ line: number; reason: string }>;
}

export const REJECTS_KEPT = 100;
/** Bigger files are refused before they are read (the file is read whole). */
export const LIST_FILE_MAX_BYTES = 256 * 1024 * 1024;

export type Role = 'pid' | 'phone' | 'address' | 'address2' | 'zip';

// Header names, compared upper-cased without spaces, underscores or other punctuation.
const HEADER_ROLES: ReadonlyMap<string, Role> = new Map<string, Role>([
  ...['PID', 'PERSONID', 'PERSONKEY'].map((h) => [h, 'pid'] as const),
  ...[
    'PHONE',
    'PHONE1',
    'PHONE2',
    'PHONE3',
    'PHONENUMBER',
    'PHONENO',
    'TELEPHONE',
    'TEL',
    'MOBILE',
    'MOBILEPHONE',
    'CELL',
    'CELLPHONE',
    'HOMEPHONE',
    'WORKPHONE',
    'LANDLINE',
  ].map((h) => [h, 'phone'] as const),
  ...['ADDRESS', 'ADDRESS1', 'ADDR', 'ADDR1', 'ADDRESSLINE1', 'ADDRESSLINE', 'STREET', 'STREETADDRESS', 'MAILINGADDRESS'].map(
    (h) => [h, 'address'] as const,
  ),
  ...['ADDRESS2', 'ADDR2', 'ADDRESSLINE2'].map((h) => [h, 'address2'] as const),
  ...['ZIP', 'ZIPCODE', 'ZIP5', 'POSTALCODE', 'POSTCODE'].map((h) => [h, 'zip'] as const),
]);

export function roleOf(header: string): Role | undefined {
  return HEADER_ROLES.get(header.toUpperCase().replace(/[^A-Z0-9]/g, ''));
}

/** The delimiter the header line uses most of: ',', tab or '|' (none: a one-column file). */
export function detectDelimiter(firstLine: string): string {
  let best = ',';
  let most = 0;
  for (const d of [',', '\t', '|']) {
    const n = firstLine.split(d).length - 1;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

/**
 * The file's text; unreadable, too big, not UTF-8 text, a link (unless `followLinks`) or not a
 * regular file (fs/regularFile.ts): a clear error naming the file, not its content.
 */
function readText(path: string, followLinks: boolean): string {
  const name = basename(path);
  let bytes: Buffer;
  try {
    const { fd, stats } = openRegularFile(path, { followLinks, field: 'file', label: name });
    try {
      if (stats.size > LIST_FILE_MAX_BYTES)
        throw new AppError(
          'invalid_request',
          `${name} is over ${LIST_FILE_MAX_BYTES / 1024 / 1024} MB; split it into smaller lists.`,
          'file',
        );
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError('invalid_request', `Cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`, 'file');
  }
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new AppError('invalid_request', `${name} is UTF-16 text; save it as UTF-8 (or plain CSV) and import it again.`, 'file');
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) throw new AppError('invalid_request', `${name} is compressed; unzip it first.`, 'file');
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Each row of the text with the line it starts on (1-based), through papaparse. */
function eachRow(text: string, delimiter: string, visit: (cells: string[], line: number) => void): void {
  let line = 1;
  let start = 0;
  Papa.parse<string[]>(text, {
    delimiter,
    step: (result) => {
      const end = result.meta.cursor;
      const cells = result.data;
      // The empty "row" after a final line break is not a row.
      if (!(end >= text.length && start >= text.length && cells.length <= 1 && (cells[0] ?? '') === '')) visit(cells, line);
      // papaparse's cursor is past the row's line break: count it and any inside quoted cells.
      for (let i = text.indexOf('\n', start); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) line++;
      start = end;
    },
  });
}

/** Reads and classifies every row of a suppression list file; nothing is stored here. A link is refused unless `followLinks`. */
export function readListFile(path: string, followLinks = false): ListFileContent {
  const text = readText(path, followLinks);
  const firstLine = text.slice(0, Math.max(0, text.search(/\r?\n|$/)));
  const delimiter = detectDelimiter(firstLine);
  const out: ListFileContent = { rows: 0, pids: new Set(), phones: new Set(), addresses: new Set(), rejected: 0, rejects: [] };
  const reject = (line: number, reason: string) => {
    out.rejected++;
    if (out.rejects.length < REJECTS_KEPT) out.rejects.push({ line, reason });
  };
  let roles: Array<Role | undefined> | null = null;
  let headerless = false;
  eachRow(text, delimiter, (cells, line) => {
    if (roles === null && !headerless) {
      const found = cells.map(roleOf);
      if (found.some((r) => r !== undefined)) {
        roles = found;
        const has = new Set(found);
        if (has.has('address') !== has.has('zip') && !has.has('pid') && !has.has('phone'))
          throw new AppError(
            'invalid_request',
            `${basename(path)} has an address column without a ZIP column, or a ZIP without an address.`,
            'file',
          );
        return;
      }
      if (cells.length > 1)
        throw new AppError(
          'invalid_request',
          `The first line of ${basename(path)} names no PID, PHONE, ADDRESS or ZIP column; add a header row (docs/list-controls.md).`,
          'file',
        );
      // One column and no header: phones or PIDs, one a line.
      headerless = true;
    }
    out.rows++;
    if (cells.every((c) => c.trim() === '')) return reject(line, 'empty row');
    if (headerless) {
      if (cells.length > 1) return reject(line, 'more than one column in a one-column file');
      const pid = normalizePid(cells[0]!);
      const phone = pid === null ? normalizePhone(cells[0]!) : null;
      if (pid !== null) out.pids.add(pid);
      else if (phone !== null) out.phones.add(phone);
      else reject(line, 'not a PID (32 hexadecimal characters) or a phone (10 digits)');
      return;
    }
    classifyRow(cells, roles!, line, out, reject);
  });
  return out;
}

function classifyRow(
  cells: string[],
  roles: ReadonlyArray<Role | undefined>,
  line: number,
  out: ListFileContent,
  reject: (line: number, reason: string) => void,
): void {
  let kept = 0;
  const problems = new Set<string>();
  const keep = (values: Set<string>, value: string | null, problem: string): void => {
    if (value === null) problems.add(problem);
    else {
      values.add(value);
      kept++;
    }
  };
  let address = '';
  let zip = '';
  roles.forEach((role, i) => {
    const cell = (cells[i] ?? '').trim();
    if (role === undefined || cell === '') return;
    if (role === 'pid') keep(out.pids, normalizePid(cell), 'PID is not 32 hexadecimal characters');
    else if (role === 'phone') keep(out.phones, normalizePhone(cell), 'phone is not 10 digits');
    // ADDRESS2 (the unit) follows the address line, whatever the column order.
    else if (role === 'address') address = `${cell} ${address}`;
    else if (role === 'address2') address = `${address} ${cell}`;
    else zip ||= cell;
  });
  if (address.trim() || zip) {
    const problem =
      normalizeAddressLine(address) === null
        ? 'ZIP without an address'
        : zip && normalizeZip(zip) === null
          ? 'ZIP is not 5 digits'
          : 'address without a ZIP';
    keep(out.addresses, normalizeAddress(address, zip), problem);
  }
  if (kept === 0) reject(line, problems.size > 0 ? [...problems].join('; ') : 'no PID, phone or address');
}
