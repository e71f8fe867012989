// Match and append from the vectors (src/core/match/vectorMatch.ts) against the matcher that reads
// every candidate's record (countMatching), on the real engine over the shared test dataset: the same
// matches, values, ties, methods and refusals for a messy file with strangers, ties, rows named by PID
// alone (real and unknown PIDs), a PID under the wrong name and rows found three ways at once, with
// appended fields of every vector encoding. And it reads no record where the vectors answer.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fieldIndex } from '../../src/shared/fields';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { readCustomerFile, type CustomerRow } from '../../src/core/match/customerFile';
import { matchPeople, type MatchOutcome } from '../../src/core/match/matchPeople';
import type { AudienceEngine } from '../../src/core/audience/contract/engine';
import { listKey } from '../../src/core/dataset/format/listKeys';
import { openDatasetSql } from '../support/datasetSql';
import { buildCustomers, csvCell, HEADER, readPeople, type Person } from './matchData';

/** Appended fields: dictionary codes, integers, hashes (PID, PHONE, ADDRESS) and coordinates. */
const FIELDS = ['GENDER', 'CITY', 'AGE', 'PID', 'PHONE', 'ADDRESS', 'LATITUDE'];

let dir: string;
let engine: EmbeddedEngine;
let people: Person[];

const row = (cells: Partial<Record<'first' | 'last' | 'address' | 'zip' | 'phone' | 'pid', string>>): string[] => [
  'X',
  cells.first ?? '',
  cells.last ?? '',
  cells.address ?? '',
  cells.zip ?? '',
  cells.phone ?? '',
  cells.pid ?? '',
  '',
];

async function customerRows(name: string, lines: string[][]): Promise<CustomerRow[]> {
  const path = join(dir, name);
  writeFileSync(path, [HEADER, ...lines].map((cells) => cells.map(csvCell).join(',')).join('\n') + '\n');
  return (await readCustomerFile(path)).rows;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-vector-match-'));
  engine = new EmbeddedEngine(Dataset.open(inject('datasetPath')), { backgroundVerify: false, pidOrderWarmup: false });
  people = readPeople(inject('datasetPath'));
});
afterAll(() => {
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Matches as matchPeople gives them when not asked for PIDs: a PID is known only when it was the key. */
const withoutPids = (outcome: MatchOutcome): MatchOutcome => ({
  ...outcome,
  matches: outcome.matches.map((m) => m && { ...m, pid: m.method === 'pid' ? m.pid : '' }),
});

/** What `ask` answers through the matcher that reads every candidate's record (countMatching): the engine's fast primitive hidden. */
async function readingRecords<T>(ask: () => Promise<T>): Promise<T> {
  const plain = engine as AudienceEngine;
  plain.keyedCandidates = undefined;
  try {
    return await ask();
  } finally {
    delete plain.keyedCandidates;
  }
}

describe('match from vectors', () => {
  it('answers exactly as the matcher that reads every candidate record', async () => {
    const encodings = new Set(FIELDS.map((f) => engine.dataset.columnInfo(fieldIndex(f)).encoding));
    expect([...encodings].sort()).toEqual(expect.arrayContaining(['dict', 'hash', 'value']));
    const db = openDatasetSql(inject('datasetPath'));
    let pairs: Array<{ ADDRESS: string; ZIP: string; LNAME: string; F1: string }>;
    try {
      // Two people of one last name and first initial at an address: an initial ties them.
      pairs = db
        .prepare(
          `SELECT ADDRESS, ZIP, LNAME, min(FNAME) AS F1 FROM people GROUP BY ADDRESS, ZIP, LNAME, substr(FNAME, 1, 1)
           HAVING count(*) = 2 AND min(FNAME) <> max(FNAME) LIMIT 20`,
        )
        .all() as typeof pairs;
    } finally {
      db.close();
    }
    expect(pairs.length).toBeGreaterThan(5);
    const some = people.filter((_, k) => k % 97 === 0);
    const lines = [
      ...buildCustomers(people).map((s) => s.cells),
      ...pairs.map((p) => row({ first: `${p.F1[0]!}.`, last: p.LNAME, address: p.ADDRESS, zip: p.ZIP })),
      // By PID alone: real, unknown, and real under a wrong name or a last name only.
      ...some.map((p) => row({ pid: p.PID.toLowerCase() })),
      ...some.slice(0, 10).map((p, k) => row({ pid: `${p.PID.slice(0, 28)}${String(9000 + k)}` })),
      ...some.slice(0, 10).map((p) => row({ first: 'Nobodyknows', last: p.LNAME, pid: p.PID })),
      ...some.slice(10, 20).map((p) => row({ last: p.LNAME, pid: p.PID })),
      // Found three ways at once, and by the right phone under the wrong ZIP's address.
      ...some.slice(20, 40).map((p) => row({ first: p.FNAME, last: p.LNAME, address: p.ADDRESS, zip: p.ZIP, phone: p.PHONE, pid: p.PID })),
      ...some.slice(40, 60).map((p) => row({ first: p.FNAME, last: p.LNAME, address: p.ADDRESS, zip: '00001', phone: p.PHONE2 })),
    ];
    const rows = await customerRows('mixed.csv', lines);
    const fromVectors = await matchPeople(engine, rows, FIELDS, null, true);
    const fromRecords = await readingRecords(() => matchPeople(engine, rows, FIELDS, null, true));
    expect(fromVectors).toEqual(fromRecords);
    const matched = fromVectors.matches.filter((m) => m !== undefined);
    expect(matched.filter((m) => m.tied).length).toBeGreaterThanOrEqual(pairs.length);
    expect(fromVectors.refused).toBeGreaterThan(20);
    expect(new Set(matched.map((m) => m.method))).toEqual(new Set(['pid', 'address', 'phone']));
    // The unknown PIDs match nobody; the real ones by PID alone match their own person.
    const unnamedFrom = buildCustomers(people).length + pairs.length;
    some.forEach((p, k) => expect(fromVectors.matches[unnamedFrom + k]?.pid).toBe(p.PID));
    for (let k = 0; k < 10; k++) expect(fromVectors.matches[unnamedFrom + some.length + k]).toBeUndefined();
  });

  it('leaves opted-out people unmatched as the record-reading matcher does, reading only those who could be', async () => {
    const rows = await customerRows(
      'optouts.csv',
      buildCustomers(people).map((s) => s.cells),
    );
    const fields = ['GENDER', 'CITY'];
    // Every third person the file names is opted out, by PID (as consumer opt-outs name people).
    const named = new Set(
      buildCustomers(people)
        .filter((s, k) => s.expect !== null && k % 3 === 0)
        .map((s) => s.expect!.pid),
    );
    const test = (values: ReadonlyArray<string | number>) => named.has(String(values[0]));
    const keys = () => ({
      pid: Uint32Array.from([...named].map((pid) => listKey(pid))),
      phone: new Uint32Array(),
      address: new Uint32Array(),
    });
    const expected = await readingRecords(() => matchPeople(engine, rows, fields, test, true));
    expect(named.size).toBeGreaterThan(10);
    expect(expected.matches.filter((m) => m && named.has(m.pid))).toEqual([]);
    let read = 0;
    const real = engine.recordValues.bind(engine);
    engine.recordValues = (refs, names) => {
      read += refs.length;
      return real(refs, names);
    };
    try {
      expect(await matchPeople(engine, rows, fields, test, true)).toEqual(expected);
      read = 0;
      expect(await matchPeople(engine, rows, fields, test, false)).toEqual(withoutPids(expected));
      const withoutKeys = read;
      read = 0;
      expect(await matchPeople(engine, rows, fields, Object.assign(test, { keys }), false)).toEqual(withoutPids(expected));
      // Without the opt-outs' keys everyone about to be matched is read and asked; with them only those who could be opted out.
      const matched = expected.matches.filter((m) => m !== undefined).length;
      expect(withoutKeys - read).toBeGreaterThanOrEqual(matched);
    } finally {
      engine.recordValues = real;
    }
  });

  it('reads no record where the vectors hold the names and the appended fields', async () => {
    const rows = await customerRows(
      'real.csv',
      buildCustomers(people)
        .filter((s) => s.expect !== null)
        .map((s) => s.cells),
    );
    const fields = ['GENDER', 'CITY', 'AGE'];
    let read = 0;
    let scans = 0;
    const real = engine.recordValues.bind(engine);
    const countMatching = engine.countMatching.bind(engine);
    engine.recordValues = (refs, names) => {
      read += refs.length;
      return real(refs, names);
    };
    engine.countMatching = (matcher) => {
      scans++;
      return countMatching(matcher);
    };
    try {
      const fromVectors = await matchPeople(engine, rows, fields, null, false);
      expect([read, scans]).toEqual([0, 0]);
      const fromRecords = await readingRecords(() => matchPeople(engine, rows, fields, null, false));
      expect(fromVectors.matches.filter((m) => m !== undefined).length).toBe(rows.length);
      // Without a kept list the PIDs are not wanted: everything else is the same.
      const strip = (m: (typeof fromVectors.matches)[number]) => m && { ...m, pid: undefined };
      expect(fromVectors.matches.map(strip)).toEqual(fromRecords.matches.map(strip));
      expect(fromVectors.refused).toBe(fromRecords.refused);
      expect(scans).toBe(1);
    } finally {
      engine.recordValues = real;
      engine.countMatching = countMatching;
    }
  });
});
