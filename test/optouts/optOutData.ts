// An opt-out file built from real records of one state, written the messy way: every 40th person by
// PID (lower case), by formatted phone, or by name (swapped case) at their address (spelled out,
// ZIP+4), and one address without a name, which names no one. Returns the PIDs it must leave out in
// every state, found from the records' own values (the oracle's), not by the code under test.
import { writeFileSync } from 'node:fs';
import { normalizeAddress, normalizePhone } from '../../src/shared/normalize';
import { messyAddress } from '../lists/listData';
import { swapCase, type Person } from '../match/matchData';

export function writeOptOutFile(file: string, people: readonly Person[], state: string): Set<string> {
  const lines = ['Person ID,First Name,Last Name,Street,Zip,Telephone'];
  const phones = new Set<string>();
  const persons = new Set<string>();
  const pids = new Set<string>();
  people
    .filter((p) => p.STATE === state)
    .forEach((p, k) => {
      if (k % 40 !== 0) return;
      const kind = (k / 40) % 3;
      if (kind === 0) {
        pids.add(p.PID);
        lines.push(`${p.PID.toLowerCase()},,,,,`);
      } else if (kind === 1 && p.PHONE !== '') {
        phones.add(p.PHONE);
        lines.push(`,,,,,"(${p.PHONE.slice(0, 3)}) ${p.PHONE.slice(3, 6)}-${p.PHONE.slice(6)}"`);
      } else {
        persons.add(`${p.FNAME}|${p.LNAME}|${normalizeAddress(p.ADDRESS, p.ZIP)}`);
        lines.push(`,${swapCase(p.FNAME)},${p.LNAME.toLowerCase()},"${messyAddress(p.ADDRESS, k)}",${p.ZIP}-1234,`);
      }
    });
  lines.push(',,,1 Main St,99501,');
  writeFileSync(file, lines.join('\n') + '\n');
  return new Set(
    people
      .filter(
        (p) =>
          pids.has(p.PID) ||
          [p.PHONE, p.PHONE2, p.PHONE3].some((ph) => ph !== '' && phones.has(normalizePhone(ph)!)) ||
          persons.has(`${p.FNAME}|${p.LNAME}|${normalizeAddress(p.ADDRESS, p.ZIP)}`),
      )
      .map((p) => p.PID),
  );
}
