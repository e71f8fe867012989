// The staging file (staging.ts) on its own: rows from two readers, 75,000 in all, with PIDs that
// come back (some under another state). dedupe() keeps the row read last of each PID, order()
// gives the arrival of each of the rest in (STATE, PID) order, and records() the rows themselves
// in the same order, as they came.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Staging } from '../../src/core/import/stage/staging';
import { STATE_CODES } from '../../src/shared/states';
import { pidOf, tempDir } from './helpers';

const dir = tempDir('audience-desk-staging-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('keeps the row read last of each PID and gives the rest back in (STATE, PID) order', () => {
  // Rows 0-69,999 come from reader 0, the rest from reader 1; rows from 60,000 on repeat the PID
  // of the row 60,000 before them, under a state of their own.
  const rows = Array.from({ length: 75_000 }, (_, i) => {
    const state = STATE_CODES[(i * 7) % STATE_CODES.length]!;
    const pid = pidOf((i % 60_000) * 7919);
    return { reader: i < 70_000 ? 0 : 1, arrival: i, state, pid, json: JSON.stringify([state, pid, i, 'é'.repeat(i % 5)]) };
  });
  const staging = new Staging(join(dir, 'staging'));
  try {
    for (let at = 0; at < rows.length;) {
      const reader = rows[at]!.reader;
      const batch = rows.slice(at, at + 512).filter((r) => r.reader === reader);
      staging.add(reader, batch.map((r) => r.state + r.pid).join(''), batch.map((r) => r.json).join('\n'), batch.length);
      at += batch.length;
    }
    expect(staging.readerCounts).toEqual([70_000, 5_000]);
    expect(staging.dedupe()).toEqual({ replaced: 15_000, records: 60_000 });
    const last = new Map(rows.map((r) => [r.pid, r]));
    const expected = [...last.values()].sort((a, b) => (a.state + a.pid < b.state + b.pid ? -1 : 1));
    const order = new Uint32Array(60_000);
    staging.order(order);
    expect(Array.from(order)).toEqual(expected.map((r) => r.arrival));
    expect([...staging.records()]).toEqual(expected.map((r) => ({ state: r.state, text: r.json })));
    expect(() => staging.order(new Uint32Array(59_999))).toThrow(/more records/i);
  } finally {
    staging.dispose();
  }
});
