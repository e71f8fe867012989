// A suppression list built from real records of the shared test dataset, written the messy way
// people write them (punctuation and +1 in phones, lower-case PIDs, spelled-out street types, odd
// spacing, ZIP+4), with blank and junk rows whose line numbers the test knows. The values it was
// built from are returned raw, as the dataset holds them, for the plain-SQL oracle.
import { openDatasetSql } from '../support/datasetSql';
import { writeFileSync } from 'node:fs';

export interface PersonValues {
  PID: string;
  PHONE: string;
  PHONE2: string;
  PHONE3: string;
  ADDRESS: string;
  ZIP: string;
}

export interface MessyList {
  pids: string[];
  phones: string[];
  /** ADDRESS and ZIP as the dataset holds them. */
  addresses: Array<[string, string]>;
  /** Lines (1-based, header = line 1) of the rows that must be rejected. */
  rejectLines: number[];
  rows: number;
}

export function readPeople(datasetPath: string): PersonValues[] {
  const db = openDatasetSql(datasetPath);
  try {
    return db.prepare('SELECT PID, PHONE, PHONE2, PHONE3, ADDRESS, ZIP FROM people ORDER BY PID').all() as PersonValues[];
  } finally {
    db.close();
  }
}

const SPELLED: Record<string, string> = {
  LN: 'Lane',
  ST: 'Street',
  AVE: 'Avenue',
  RD: 'Road',
  DR: 'Drive',
  BLVD: 'Boulevard',
  CT: 'Court',
  PL: 'Place',
  TER: 'Terrace',
  CIR: 'Circle',
  N: 'North',
  S: 'south',
  E: 'EAST',
  W: 'West',
  APT: 'Apartment',
};

export function messyAddress(address: string, k: number): string {
  const words = address.split(' ').map((w) => SPELLED[w] ?? w.toLowerCase());
  const line = words.join(k % 2 ? '  ' : ' ').replace(/ # /, ' #');
  return k % 3 === 0 ? `  ${line}, ` : line;
}

export function messyPhone(phone: string, k: number): string {
  const [a, b, c] = [phone.slice(0, 3), phone.slice(3, 6), phone.slice(6)];
  return [`(${a}) ${b}-${c}`, `+1 ${a} ${b} ${c}`, `1-${a}-${b}-${c}`, `${a}.${b}.${c}`][k % 4]!;
}

/** Writes the list file; every 7th... record of `people` named by one kind of value. */
export function writeMessyList(path: string, people: PersonValues[]): MessyList {
  const out: MessyList = { pids: [], phones: [], addresses: [], rejectLines: [], rows: 0 };
  const lines = ['Person ID,Telephone,Street Address,ZIP Code'];
  const push = (cells: string[]) => {
    lines.push(cells.map((c) => (/[",]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(','));
    out.rows++;
  };
  const junk = () => {
    push(['not-a-pid', '555-12', '', '']);
    out.rejectLines.push(lines.length);
  };
  for (let k = 0; k < 25; k++) {
    const p = people[(k * 1009 + 11) % people.length]!;
    out.pids.push(p.PID);
    push([k % 2 ? p.PID.toLowerCase() : ` ${p.PID.toLowerCase()} `, '', '', '']);
  }
  lines.push('');
  out.rows++;
  out.rejectLines.push(lines.length);
  let k = 0;
  for (const p of people
    .filter((q) => q.PHONE2 !== '')
    .slice(0, 400)
    .filter((_, i) => i % 16 === 3)) {
    out.phones.push(p.PHONE2);
    push(['', messyPhone(p.PHONE2, k++), '', '']);
  }
  junk();
  for (const p of people.filter((q) => q.PHONE !== '').filter((_, i) => i % 1201 === 5)) {
    out.phones.push(p.PHONE);
    push(['', messyPhone(p.PHONE, k++), '', '']);
  }
  push(['', '', '', '']);
  out.rejectLines.push(lines.length);
  for (const p of people.filter((_, i) => i % 997 === 17)) {
    out.addresses.push([p.ADDRESS, p.ZIP]);
    push(['', '', messyAddress(p.ADDRESS, k), k % 2 ? `${p.ZIP}-0042` : p.ZIP]);
    k++;
  }
  // An address of an apartment written with '#', as people do.
  const unit = people.find((p) => / APT \d+$/.test(p.ADDRESS))!;
  out.addresses.push([unit.ADDRESS, unit.ZIP]);
  push(['', '', unit.ADDRESS.replace(/ APT (\d+)$/, ' #$1').toLowerCase(), unit.ZIP]);
  // An address without its ZIP names nobody.
  push(['', '', 'somewhere 1', '']);
  out.rejectLines.push(lines.length);
  junk();
  writeFileSync(path, lines.join('\r\n') + '\r\n');
  return out;
}
