// A customer file built from real records of the shared test dataset, written as vendors write them
// (formatted phones, lower-case spelled-out addresses with ZIP+4, names in swapped case, lower-case
// PIDs), plus strangers: real addresses and phones with other people's names. Each row knows whom it
// must match (or that it must match nobody), chosen so that only that person can be the answer:
// the plain-SQL oracle reads the dataset, the matcher under test never runs here.
import { openDatasetSql } from '../support/datasetSql';
import { messyAddress, messyPhone } from '../lists/listData';

export interface Person {
  PID: string;
  FNAME: string;
  LNAME: string;
  PHONE: string;
  PHONE2: string;
  PHONE3: string;
  ADDRESS: string;
  ZIP: string;
  GENDER: string;
  GENERATION_GRPCD: string;
  CITY: string;
  STATE: string;
}

export interface CustomerRowSpec {
  /** The row's cells, in the header's order. */
  cells: string[];
  /** The person it must match and how, or null for a stranger. */
  expect: { pid: string; method: 'pid' | 'address' | 'phone' } | null;
}

export const HEADER = ['Customer No', 'First Name', 'Last Name', 'Street Address', 'Zip Code', 'Phone Number', 'Person ID', 'Notes'];
export const APPENDED = ['GENDER', 'GENERATION_GRPCD', 'CITY'] as const;

export function readPeople(datasetPath: string): Person[] {
  const db = openDatasetSql(datasetPath);
  try {
    return db
      .prepare(
        `SELECT PID, FNAME, LNAME, PHONE, PHONE2, PHONE3, ADDRESS, ZIP, GENDER, GENERATION_GRPCD, CITY, STATE FROM people ORDER BY PID`,
      )
      .all() as Person[];
  } finally {
    db.close();
  }
}

/** "Michael" as "mICHAEL": every letter's case swapped. */
export const swapCase = (s: string): string => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
const formatted = (p: string): string => `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`;
const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

export function buildCustomers(people: readonly Person[]): CustomerRowSpec[] {
  // Who shares what: a row is only used where its own person is the one answer.
  const atAddress = new Map<string, number>();
  const lastAtAddress = new Set<string>();
  const withPhone = new Map<string, number>();
  const lastWithPhone = new Set<string>();
  const lastNames = new Set<string>();
  for (const p of people) {
    count(atAddress, `${p.FNAME}|${p.LNAME}|${p.ADDRESS}|${p.ZIP}`);
    lastAtAddress.add(`${p.LNAME}|${p.ADDRESS}|${p.ZIP}`);
    lastNames.add(p.LNAME);
    for (const ph of [p.PHONE, p.PHONE2, p.PHONE3]) {
      if (ph === '') continue;
      count(withPhone, `${p.FNAME}|${p.LNAME}|${ph}`);
      lastWithPhone.add(`${p.LNAME}|${ph}`);
    }
  }
  // A first name whose initial is no other first name's of the same last name, so initial matches cannot tie.
  const rows: CustomerRowSpec[] = [];
  let n = 0;
  const note = (k: number): string => (k % 3 === 0 ? 'said "call later", ok' : k % 3 === 1 ? 'Zoë; café' : '');
  const strangerLast = (k: number): string => {
    const name = `QUIXOTE${String.fromCharCode(65 + (k % 26))}`;
    if (lastNames.has(name)) throw new Error('A stranger name is somebody.');
    return name;
  };
  for (const [k, p] of people.entries()) {
    if (k % 150 !== 0) continue;
    n++;
    const kind = n % 5;
    const first = swapCase(p.FNAME.charAt(0) + p.FNAME.slice(1).toLowerCase());
    const last = swapCase(p.LNAME.charAt(0) + p.LNAME.slice(1).toLowerCase());
    const id = `C${String(n).padStart(5, '0')}`;
    if (kind === 0) {
      rows.push({ cells: [id, first, last, '', '', '', p.PID.toLowerCase(), note(n)], expect: { pid: p.PID, method: 'pid' } });
    } else if (kind === 1 || kind === 2) {
      if (atAddress.get(`${p.FNAME}|${p.LNAME}|${p.ADDRESS}|${p.ZIP}`) !== 1) continue;
      rows.push({
        cells: [id, first, last, messyAddress(p.ADDRESS, n).toLowerCase(), `${p.ZIP}-${String(1000 + n).slice(-4)}`, '', '', note(n)],
        expect: { pid: p.PID, method: 'address' },
      });
    } else if (kind === 3) {
      const phone = [p.PHONE, p.PHONE2, p.PHONE3].find((ph) => ph !== '');
      if (phone === undefined || withPhone.get(`${p.FNAME}|${p.LNAME}|${phone}`) !== 1) continue;
      rows.push({
        cells: [id, first, last, '', '', n % 2 ? formatted(phone) : messyPhone(phone, n), '', note(n)],
        expect: { pid: p.PID, method: 'phone' },
      });
    } else {
      // Strangers: a real address, a real phone, even a real PID, under a last name nobody there has.
      const other = strangerLast(n);
      if (lastAtAddress.has(`${other}|${p.ADDRESS}|${p.ZIP}`)) continue;
      const phone = [p.PHONE, p.PHONE2, p.PHONE3].find((ph) => ph !== '') ?? '';
      const cells = [
        id,
        first,
        other,
        p.ADDRESS.toLowerCase(),
        p.ZIP,
        phone === '' ? '' : formatted(phone),
        n % 3 === 0 ? p.PID : '',
        note(n),
      ];
      rows.push({ cells, expect: null });
    }
  }
  return rows;
}

/** A CSV cell as a spreadsheet writes it. */
export const csvCell = (v: string): string => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
