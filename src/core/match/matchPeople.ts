// Finds each customer row's person in the current dataset: by PID, by name with address, or by name
// with phone, the same normalised values and list keys suppression lists use, so an engine reads only
// the records one of whose keys is one of the file's (dataset/format/listKeys.ts). It is asked as a
// RecordMatcher (countMatching, which both engines answer) that never names anyone, only notes each
// record it is shown against the rows that share one of its values. A row is matched only when the
// name agrees (personNames.ts): never a stranger. Ties keep the lowest PID and are counted. An
// engine that can describe the candidates from its vectors answers through vectorMatch.ts instead,
// with the same rules, and reads records only where its vectors cannot answer.
import { randomBytes } from 'node:crypto';
import { normalizeAddress, normalizePhone, normalizePid } from '../../shared/normalize';
import type { AudienceEngine, RecordMatcher } from '../audience/contract/engine';
import { listKey } from '../dataset/format/listKeys';
import type { CustomerRow } from './customerFile';
import { nameAgreement, normalizeName } from './personNames';
import { matchByVectors } from './vectorMatch';
import { MATCH_READ_FIELDS, type MatchMethod, type MatchOutcome, type RowMatch, type Withheld } from './matchTypes';

export { MATCH_READ_FIELDS };
export type { MatchMethod, MatchOutcome, RowMatch, Withheld };

/** Method ranks: a PID names a person outright, then an address with the name, then a phone with the name. */
const METHOD_RANK: Readonly<Record<MatchMethod, number>> = { pid: 3, address: 2, phone: 1 };
const METHODS: readonly MatchMethod[] = ['pid', 'address', 'phone'];

function push(map: Map<string, number[]>, key: string, row: number): void {
  const rows = map.get(key);
  if (rows) rows.push(row);
  else map.set(key, [row]);
}

/**
 * Matches every row against the engine's dataset; `fields` are appended (catalog names). `wantPids`:
 * each match's `pid` is wanted (a list is kept of them); else it may be ''.
 */
export async function matchPeople(
  engine: AudienceEngine,
  rows: readonly CustomerRow[],
  fields: readonly string[],
  withheld: Withheld,
  wantPids = true,
): Promise<MatchOutcome> {
  const byPid = new Map<string, number[]>();
  const byPhone = new Map<string, number[]>();
  const byAddress = new Map<string, number[]>();
  rows.forEach((r, i) => {
    if (r.pid !== null) push(byPid, r.pid, i);
    const named = r.name.first !== '' && r.name.last !== '';
    if (!named) return;
    for (const phone of r.phones) push(byPhone, phone, i);
    if (r.address !== null) push(byAddress, r.address, i);
  });
  const keys = (m: Map<string, number[]>) => Uint32Array.from(m.keys(), (v) => listKey(v));
  const listKeys = { pid: keys(byPid), phone: keys(byPhone), address: keys(byAddress) };
  const keyed = byPid.size + byPhone.size + byAddress.size > 0;
  // From the vectors where the engine has them (vectorMatch.ts), else every candidate's record is read.
  if (keyed) {
    const fast = await matchByVectors(engine, rows, { byPid, byPhone, byAddress }, listKeys, fields, wantPids, withheld);
    if (fast) return fast;
  }
  const matches: Array<RowMatch | undefined> = new Array(rows.length);
  const found = new Uint8Array(rows.length);
  const at = MATCH_READ_FIELDS.length;
  const offer = (row: number, method: MatchMethod, record: ReadonlyArray<string | number>, pid: string): void => {
    const r = rows[row]!;
    found[row] = 1;
    let score = METHOD_RANK[method] * 4;
    if (r.name.last !== '') {
      const agree = nameAgreement(r.name, { first: normalizeName(String(record[6] ?? '')), last: normalizeName(String(record[7] ?? '')) });
      // A PID names its person, but a row that also names someone else is someone else's row.
      if (agree === 0) return;
      score += agree;
    } else if (method !== 'pid') return;
    const best = matches[row];
    if (best === undefined || score > best.score) matches[row] = { method, pid, values: record.slice(at), tied: false, score };
    else if (score === best.score && pid !== best.pid) {
      best.tied = true;
      if (pid < best.pid) Object.assign(best, { pid, values: record.slice(at), method });
    }
  };
  const matcher: RecordMatcher = {
    // A new key each run: the engine keeps what a matcher named by its key.
    key: `match:${randomBytes(8).toString('hex')}`,
    fields: [...MATCH_READ_FIELDS, ...fields],
    listKeys: () => listKeys,
    matches(values) {
      if (withheld?.(values)) return false;
      const pid = normalizePid(String(values[0]));
      if (pid === null) return false;
      for (const row of byPid.get(pid) ?? []) offer(row, 'pid', values, pid);
      if (byAddress.size > 0) {
        const address = normalizeAddress(String(values[4] ?? ''), String(values[5] ?? ''));
        if (address !== null) for (const row of byAddress.get(address) ?? []) offer(row, 'address', values, pid);
      }
      if (byPhone.size > 0)
        for (let f = 1; f <= 3; f++) {
          const raw = values[f];
          if (raw === undefined || raw === '') continue;
          const phone = normalizePhone(raw);
          if (phone !== null) for (const row of byPhone.get(phone) ?? []) offer(row, 'phone', values, pid);
        }
      return false;
    },
  };
  if (keyed) await engine.countMatching(matcher);
  let refused = 0;
  rows.forEach((_, i) => {
    if (found[i] === 1 && matches[i] === undefined) refused++;
  });
  return { matches, refused };
}

/** How many rows each method matched. */
export function byMethod(matches: ReadonlyArray<RowMatch | undefined>): Record<MatchMethod, number> {
  const out = { pid: 0, address: 0, phone: 0 };
  for (const m of matches) if (m) out[m.method]++;
  return Object.fromEntries(METHODS.map((k) => [k, out[k]])) as Record<MatchMethod, number>;
}
