// The staging file (staging.ts) on its own: rows from two readers, 75,000 in all, with PIDs that
// come back (some under another state). dedupe() keeps the row read last of each PID, order()
// gives the arrival of each of the rest in the file's order (STATE, then household: ZIP, ADDRESS
// hash, HHID hash, then PID), and records() the rows themselves in the same order, as they came,
// each with its PID's rank in its state.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { KEY_HOUSEHOLD_AT, KEY_LENGTH, rowKey } from '../../src/core/import/read/batch';
import { Staging } from '../../src/core/import/stage/staging';
import { FIELDS, fieldIndex } from '../../src/shared/fields';
import { STATE_CODES } from '../../src/shared/states';
import { pidOf, tempDir } from './helpers';

const dir = tempDir('audience-desk-staging-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hex8 = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');

it('keeps the row read last of each PID and gives the rest back by household, with PID ranks', () => {
  // Rows 0-69,999 come from reader 0, the rest from reader 1; rows from 60,000 on repeat the PID
  // of the row 60,000 before them, under a state of their own. ZIPs spread over several buckets
  // of a state (first three digits); households (ADDRESS and HHID hashes) share a ZIP.
  const rows = Array.from({ length: 75_000 }, (_, i) => {
    const state = STATE_CODES[(i * 7) % STATE_CODES.length]!;
    const pid = pidOf((i % 60_000) * 7919);
    const household = [10_000 + ((i * 31) % 800), (i * 17) % 50, i % 3];
    const key = state + pid + household.map(hex8).join('');
    return { reader: i < 70_000 ? 0 : 1, arrival: i, state, pid, key, json: JSON.stringify([state, pid, i, 'é'.repeat(i % 5)]) };
  });
  const staging = new Staging(join(dir, 'staging'));
  try {
    for (let at = 0; at < rows.length;) {
      const reader = rows[at]!.reader;
      const batch = rows.slice(at, at + 512).filter((r) => r.reader === reader);
      staging.add(reader, batch.map((r) => r.key).join(''), batch.map((r) => r.json).join('\n'), batch.length);
      at += batch.length;
    }
    expect(staging.readerCounts).toEqual([70_000, 5_000]);
    expect(staging.dedupe()).toEqual({ replaced: 15_000, records: 60_000 });
    const last = new Map(rows.map((r) => [r.pid, r]));
    // STATE, then the household words, then PID: the key with PID moved to its end.
    const fileKey = (r: (typeof rows)[number]): string => r.state + r.key.slice(34) + r.pid;
    const expected = [...last.values()].sort((a, b) => (fileKey(a) < fileKey(b) ? -1 : 1));
    const order = new Uint32Array(60_000);
    staging.order(order);
    expect(Array.from(order)).toEqual(expected.map((r) => r.arrival));
    const rankOf = new Map<string, number>();
    for (const state of new Set(expected.map((r) => r.state)))
      expected
        .filter((r) => r.state === state)
        .map((r) => r.pid)
        .sort()
        .forEach((pid, rank) => rankOf.set(pid, rank));
    expect(new Set(expected.map((r) => r.state)).size).toBeGreaterThan(40);
    expect([...staging.records()]).toEqual(expected.map((r) => ({ state: r.state, text: r.json, rank: rankOf.get(r.pid) })));
    expect(() => staging.order(new Uint32Array(59_999))).toThrow(/more records/i);
  } finally {
    staging.dispose();
  }
});

it("keys a row by STATE, PID and its household: ZIP's number (0 unless 5 digits), ADDRESS and HHID hashes", () => {
  const values = (zip: string, address: string, hhid: string, pid: string): string[] => {
    const v = FIELDS.map(() => '');
    v[fieldIndex('STATE')] = 'CA';
    v[fieldIndex('PID')] = pid;
    v[fieldIndex('ZIP')] = zip;
    v[fieldIndex('ADDRESS')] = address;
    v[fieldIndex('HHID')] = hhid;
    return v;
  };
  const a = rowKey(values('90210', '1 MAIN ST', 'H1', pidOf(1)));
  const b = rowKey(values('90210', '1 MAIN ST', 'H1', pidOf(2)));
  const c = rowKey(values('90210', '1 MAIN ST', 'H2', pidOf(3)));
  for (const key of [a, b, c]) expect(key).toHaveLength(KEY_LENGTH);
  expect(a.slice(0, KEY_HOUSEHOLD_AT)).toBe('CA' + pidOf(1));
  expect(a.slice(KEY_HOUSEHOLD_AT, KEY_HOUSEHOLD_AT + 8)).toBe(hex8(90210));
  expect(a.slice(KEY_HOUSEHOLD_AT)).toBe(b.slice(KEY_HOUSEHOLD_AT)); // one household
  expect(c.slice(KEY_HOUSEHOLD_AT, KEY_HOUSEHOLD_AT + 16)).toBe(a.slice(KEY_HOUSEHOLD_AT, KEY_HOUSEHOLD_AT + 16)); // same address
  expect(c.slice(KEY_HOUSEHOLD_AT + 16)).not.toBe(a.slice(KEY_HOUSEHOLD_AT + 16));
  for (const zip of ['', '9021', '902101', 'ABCDE'])
    expect(rowKey(values(zip, 'X', 'Y', pidOf(4))).slice(KEY_HOUSEHOLD_AT, KEY_HOUSEHOLD_AT + 8)).toBe(hex8(0));
  expect(rowKey(values('00501', 'X', 'Y', pidOf(4))).slice(KEY_HOUSEHOLD_AT, KEY_HOUSEHOLD_AT + 8)).toBe(hex8(501));
});
