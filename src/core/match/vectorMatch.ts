// Match and append from the dataset's vectors (docs/match.md, "Speed"): an engine that has them
// (keyedCandidates) names the records sharing a list key with some row, with their five keys and
// the values its vectors hold exactly: the names (FNAME, LNAME), the ZIP and the appended fields. A
// row's candidates are found by key, the names compared from the dictionaries, and a record is read
// only where no vector answers: a PID for a row without a name (its key is all there is to go by), the
// PIDs of people tied for a row (the lowest wins) or kept as a list, an appended field whose vector
// holds hashes, the candidates of a row left unmatched (whether it found anyone decides `refused`),
// and, with opt-outs in force, the people about to be matched who could be opted out (an opt-out is
// told by a record's values). The rules are matchPeople's, offer for offer, in the same order of records.
import { normalizeAddress, normalizePhone, normalizePid, normalizeZip } from '../../shared/normalize';
import type { AudienceEngine, ListKeySets } from '../audience/contract/engine';
import { listKey } from '../dataset/format/listKeys';
import type { CustomerRow } from './customerFile';
import { MATCH_READ_FIELDS, type MatchMethod, type MatchOutcome, type RowMatch, type Withheld } from './matchTypes';
import { nameAgreement, normalizeName } from './personNames';

/** The rows that named each value, by the value's key (values of one key share its rows). */
export interface RowsByValue {
  byPid: Map<string, number[]>;
  byPhone: Map<string, number[]>;
  byAddress: Map<string, number[]>;
}

const KEYS = 5;
const METHODS: readonly MatchMethod[] = ['pid', 'address', 'phone'];
const RANK = [3, 2, 1];
type Values = ReadonlyArray<string | number>;
type Read = (candidates: number[], names: readonly string[]) => Promise<Values[]> | Values[];

function byKey(rows: Map<string, number[]>): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const [value, list] of rows) {
    const key = listKey(value);
    const known = out.get(key);
    if (known) known.push(...list);
    else out.set(key, [...list]);
  }
  return out;
}

/** A text's normalised form, computed once a distinct text. */
function cached(normalize: (text: string) => string): (value: string | number | undefined) => string {
  const seen = new Map<string, string>();
  return (value) => {
    const text = String(value ?? '');
    let out = seen.get(text);
    if (out === undefined) seen.set(text, (out = normalize(text)));
    return out;
  };
}

/**
 * Each row's match, or null when the engine cannot answer from vectors (no such primitive, no list
 * keys, names or ZIP hashed): the caller then reads every candidate's record (countMatching).
 */
export async function matchByVectors(
  engine: AudienceEngine,
  rows: readonly CustomerRow[],
  values: RowsByValue,
  listKeys: ListKeySets,
  fields: readonly string[],
  wantPids: boolean,
  withheld: Withheld,
): Promise<MatchOutcome | null> {
  if (!engine.keyedCandidates || !engine.recordValues) return null;
  const found = await engine.keyedCandidates(listKeys, ['FNAME', 'LNAME', 'ZIP', ...fields]);
  if (!found) return null;
  const [firsts, lasts, zips, ...appended] = found.values;
  if (!firsts || !lasts || !zips) return null;
  const read: Read = (candidates, names) =>
    engine.recordValues!(
      candidates.map((c) => found.refs[c]!),
      names,
    );
  const pidRows = byKey(values.byPid);
  const addressRows = byKey(values.byAddress);
  const phoneRows = byKey(values.byPhone);
  const rowZip = rows.map((r) => (r.address === null ? '' : r.address.slice(r.address.lastIndexOf('|') + 1)));
  const name = cached(normalizeName);
  const zip = cached((text) => normalizeZip(text) ?? '');
  const n = found.refs.length;

  /** Calls visit(row, method) for each row a candidate shares a key with (a ZIP that differs shares no address). */
  const eachRow = (c: number, visit: (row: number, method: number) => void): void => {
    const at = c * KEYS;
    // A record whose PID is not one is never offered (countMatching's matcher drops it).
    if (found.keys[at] === 0) return;
    for (const row of pidRows.get(found.keys[at]!) ?? []) visit(row, 0);
    const address = found.keys[at + 4]!;
    if (address !== 0) for (const row of addressRows.get(address) ?? []) if (rowZip[row] === zip(zips[c])) visit(row, 1);
    for (let f = 1; f <= 3; f++) {
      const phone = found.keys[at + f]!;
      if (phone !== 0) for (const row of phoneRows.get(phone) ?? []) visit(row, 2);
    }
  };

  const opted = optedOut(withheld, found.keys, read);
  // A row without a name is matched by its PID alone, so its candidates' PIDs are read and compared.
  const unnamed = new Set<number>();
  for (let c = 0; c < n; c++) eachRow(c, (row, method) => method === 0 && rows[row]!.name.last === '' && unnamed.add(c));
  const unnamedList = [...unnamed];
  const readPids = new Map<number, string | null>();
  (await read(unnamedList, MATCH_READ_FIELDS)).forEach((v, k) => {
    readPids.set(unnamedList[k]!, normalizePid(String(v[0])));
    opted.note(unnamedList[k]!, v);
  });

  const hit = new Uint8Array(rows.length);
  const bestScore = new Int8Array(rows.length);
  /** Each row's candidates at its best score, in the order offered: candidate × 4 + method. */
  const best: Array<number[] | undefined> = new Array(rows.length);
  const rank = (): void => {
    hit.fill(0);
    bestScore.fill(-1);
    best.fill(undefined);
    for (let c = 0; c < n; c++) {
      if (opted.is(c)) continue;
      const record = { first: name(firsts[c]), last: name(lasts[c]) };
      eachRow(c, (row, method) => {
        const r = rows[row]!;
        let score = RANK[method]! * 4;
        if (r.name.last !== '') {
          hit[row] = 1;
          const agree = nameAgreement(r.name, record);
          if (agree === 0) return;
          score += agree;
        } else if (method !== 0 || readPids.get(c) !== r.pid) return;
        else hit[row] = 1;
        const entry = c * 4 + method;
        if (score > bestScore[row]!) {
          bestScore[row] = score;
          best[row] = [entry];
        } else if (score === bestScore[row] && !best[row]!.some((e) => e >> 2 === c)) best[row]!.push(entry);
      });
    }
  };
  // Until nobody about to be matched could be opted out: an opted-out person found leaves the rows
  // they led to their next best.
  do rank();
  while (await opted.check(best.flatMap((list) => (list ?? []).map((e) => e >> 2))));

  // Records read: the people tied for a row, and every chosen one when an appended field or the PID needs its record.
  const hashed = fields.filter((_, f) => appended[f] === null);
  const needAll = wantPids || hashed.length > 0;
  const toRead = new Set<number>();
  best.forEach((list) => {
    if (list && (list.length > 1 || needAll)) for (const e of list) toRead.add(e >> 2);
  });
  const readList = [...toRead].sort((a, b) => a - b);
  const texts = new Map<number, Values>();
  (await read(readList, ['PID', ...hashed])).forEach((v, k) => texts.set(readList[k]!, v));
  const valuesOf = (c: number): Array<string | number> => {
    let h = 0;
    return fields.map((_, f) => (appended[f] ? appended[f][c]! : texts.get(c)![1 + h++]!));
  };

  const matches: Array<RowMatch | undefined> = new Array(rows.length);
  best.forEach((list, row) => {
    if (!list) return;
    let match: RowMatch | undefined;
    for (const e of list) {
      const c = e >> 2;
      const method = METHODS[e & 3]!;
      const text = texts.get(c);
      // Unread, the PID is the row's own: the record was found by its key.
      const pid = text ? (normalizePid(String(text[0])) ?? '') : method === 'pid' ? rows[row]!.pid! : '';
      if (!match) match = { method, pid, values: valuesOf(c), tied: false, score: bestScore[row]! };
      else if (pid !== match.pid) {
        match.tied = true;
        if (pid < match.pid) Object.assign(match, { pid, values: valuesOf(c), method });
      }
    }
    matches[row] = match;
  });
  return { matches, refused: await refusedRows(rows, matches, hit, n, eachRow, read, withheld) };
}

/**
 * The candidates found opted out. With `withheld.keys`, only a candidate with a key among them can
 * be; without, any can, so each one about to be matched is read and asked.
 */
function optedOut(withheld: Withheld, keys: Uint32Array, read: Read) {
  const out = new Uint8Array(keys.length / KEYS);
  const asked = new Uint8Array(out.length);
  const given = withheld?.keys?.() ?? null;
  const set = given && new Set([...given.pid, ...given.phone, ...given.address]);
  const suspect = (c: number): boolean => {
    if (!withheld || asked[c]) return false;
    if (!set) return true;
    for (let f = 0; f < KEYS; f++) if (keys[c * KEYS + f] !== 0 && set.has(keys[c * KEYS + f]!)) return true;
    return false;
  };
  const note = (c: number, values: Values): void => {
    if (!suspect(c)) return;
    asked[c] = 1;
    out[c] = withheld!(values) ? 1 : 0;
  };
  return {
    is: (c: number) => out[c] === 1,
    note,
    /** Reads and asks the candidates not asked yet that could be opted out; whether any was. */
    async check(candidates: number[]): Promise<boolean> {
      const pending = [...new Set(candidates.filter(suspect))].sort((a, b) => a - b);
      if (pending.length === 0) return false;
      (await read(pending, MATCH_READ_FIELDS)).forEach((v, k) => note(pending[k]!, v));
      return pending.some((c) => out[c] === 1);
    },
  };
}

/**
 * Rows not matched that found someone by a key: each is confirmed against the records it found
 * (a 32-bit key can be another value's; an opted-out person is nobody found), so `refused` counts
 * exactly the rows countMatching would.
 */
async function refusedRows(
  rows: readonly CustomerRow[],
  matches: ReadonlyArray<RowMatch | undefined>,
  hit: Uint8Array,
  candidates: number,
  eachRow: (c: number, visit: (row: number, method: number) => void) => void,
  read: Read,
  withheld: Withheld,
): Promise<number> {
  const open = (row: number) => hit[row] === 1 && matches[row] === undefined;
  const pairs: Array<[number, number, number]> = [];
  for (let c = 0; c < candidates; c++)
    eachRow(c, (row, method) => open(row) && rows[row]!.name.last !== '' && pairs.push([c, row, method]));
  const refs = [...new Set(pairs.map(([c]) => c))].sort((a, b) => a - b);
  const records = new Map<number, Values>();
  (await read(refs, MATCH_READ_FIELDS)).forEach((v, k) => records.set(refs[k]!, v));
  const refused = new Set<number>();
  for (const [c, row, method] of pairs) {
    const values = records.get(c)!;
    const [pid, p1, p2, p3, address, zip] = values;
    const r = rows[row]!;
    const same =
      method === 0
        ? normalizePid(String(pid)) === r.pid
        : method === 1
          ? normalizeAddress(String(address ?? ''), String(zip ?? '')) === r.address
          : [p1, p2, p3].some((p) => p !== undefined && p !== '' && r.phones.includes(normalizePhone(p) ?? ''));
    if (same && !withheld?.(values)) refused.add(row);
  }
  return refused.size;
}
