// The staging file (staging.ts) on its own: rows from two readers, 75,000 in all, with PIDs that
// come back (some under another state). dedupe() keeps the row read last of each PID, order()
// gives the arrival of each of the rest in the file's order (STATE, then household: ZIP, ADDRESS
// hash, HHID hash, then PID), and records() the rows themselves in the same order, as they came,
// each with its PID's rank in its state and the extras staged with it, whether a bucket is read back
// whole or in passes. The texts are kept compressed on disk (chunkFile.ts) or, when the import has
// room to spare, as they are (stagingForm.ts); either way a byte changed there is refused.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { KEY_HOUSEHOLD_AT, KEY_LENGTH, rowKey } from '../../src/core/import/read/batch';
import { Staging } from '../../src/core/import/stage/staging';
import { RECORD_EXTRA_WORDS, recordText, type RecordBytes } from '../../src/core/dataset/write/recordExtras';
import { FIELDS, fieldIndex } from '../../src/shared/fields';
import { STATE_CODES } from '../../src/shared/states';
import { pidOf, tempDir } from './helpers';

const dir = tempDir('audience-desk-staging-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hex8 = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');

/** Extras for the rows of `arrivals`, each row's its own (arrival · 7 + word). */
const extrasOf = (arrivals: number[]): Uint32Array =>
  Uint32Array.from(
    { length: arrivals.length * RECORD_EXTRA_WORDS },
    (_, k) => arrivals[Math.floor(k / RECORD_EXTRA_WORDS)]! * 7 + (k % RECORD_EXTRA_WORDS),
  );
const noExtras = (count: number): Uint32Array => new Uint32Array(count * RECORD_EXTRA_WORDS);

/** A record read back, taken before the next is asked for (its bytes are good until then). */
const readBack = (r: RecordBytes) => ({
  state: r.state,
  text: recordText(r),
  rank: r.rank,
  hhidHash: r.hhidHash,
  extras: Array.from(r.extras.subarray(r.extrasAt, r.extrasAt + RECORD_EXTRA_WORDS)),
});

it.each([
  ['each bucket read back whole', undefined, true],
  ['buckets over 2,000 bytes of text read back in passes of at most that', 2_000, true],
  ['the texts staged as they are, read back whole', undefined, false],
  ['the texts staged as they are, read back in passes', 2_000, false],
])('keeps the row read last of each PID and gives the rest back by household, with PID ranks (%s)', (_label, bucketTextBytes, compress) => {
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
  const staging = new Staging(join(dir, `staging-${compress}`), compress, bucketTextBytes);
  try {
    for (let at = 0; at < rows.length;) {
      const reader = rows[at]!.reader;
      const batch = rows.slice(at, at + 512).filter((r) => r.reader === reader);
      const keys = batch.map((r) => r.key).join('');
      staging.add(reader, keys, Buffer.from(batch.map((r) => r.json).join('\n')), extrasOf(batch.map((r) => r.arrival)), batch.length);
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
    expect(Array.from(staging.records(), readBack)).toEqual(
      expected.map((r) => ({
        state: r.state,
        text: r.json,
        rank: rankOf.get(r.pid),
        hhidHash: r.arrival % 3,
        extras: Array.from(extrasOf([r.arrival])),
      })),
    );
    expect(() => staging.order(new Uint32Array(59_999))).toThrow(/more records/i);
  } finally {
    staging.dispose();
  }
});

/** Record-like rows of one ZIP area: 392 values each, most drawn from a few, as a real file's are. */
function areaRows(count: number): Array<{ key: string; json: string }> {
  return Array.from({ length: count }, (_, i) => {
    const pid = pidOf(i * 104_729);
    const values = FIELDS.map((_, f) => (f % 5 === 0 ? String((i * 31 + f) % 97) : ['', 'Y', 'N', 'A', 'B'][(i + f) % (2 + (f % 4))]!));
    values[fieldIndex('PID')] = pid;
    return { key: 'TX' + pid + hex8(75_001 + (i % 40)) + hex8(i % 300) + hex8(i % 300), json: JSON.stringify(values) };
  });
}

it('keeps its texts compressed on disk and gives each back whole, one longer than a chunk and than a write among them', () => {
  const rows = areaRows(2_000);
  // One text of 1.5 MB (more than a chunk, and more than the file's write buffer) that compresses poorly.
  const long = JSON.stringify(Array.from({ length: 150_000 }, (_, i) => ((i * 2_654_435_761) % 4_294_967_291).toString(36)));
  rows[700] = { key: rows[700]!.key, json: long };
  const staging = new Staging(join(dir, 'staging-compressed'));
  try {
    for (let at = 0; at < rows.length; at += 300) {
      const batch = rows.slice(at, at + 300);
      staging.add(
        0,
        batch.map((r) => r.key).join(''),
        Buffer.from(batch.map((r) => r.json).join('\n')),
        noExtras(batch.length),
        batch.length,
      );
    }
    expect(staging.dedupe()).toEqual({ replaced: 0, records: 2_000 });
    const texts = Array.from(staging.records(), recordText);
    expect(texts.sort()).toEqual(rows.map((r) => r.json).sort());
    const textBytes = rows.reduce((sum, r) => sum + Buffer.byteLength(r.json), 0);
    // The file: the texts at a fraction of their size (the long one nearly whole), and the 72-byte headers.
    expect(staging.fileBytes).toBeLessThan((textBytes - long.length) / 4 + long.length + 2_000 * 72);
    expect(staging.fileBytes).toBe(readFileSync(join(dir, 'staging-compressed')).byteLength);
  } finally {
    staging.dispose();
  }
});

it('refuses a changed byte anywhere in a staging file whose texts are as they are (each chunk has its CRC-32)', () => {
  const rows = areaRows(500);
  const path = join(dir, 'staging-raw-damaged');
  const staging = new Staging(path, false);
  try {
    staging.add(0, rows.map((r) => r.key).join(''), Buffer.from(rows.map((r) => r.json).join('\n')), noExtras(rows.length), rows.length);
    staging.dedupe();
    const file = readFileSync(path);
    // The texts are in the file as they came, and nothing else is: their bytes and the 72-byte headers.
    expect(file.includes(Buffer.from(rows[250]!.json))).toBe(true);
    const textBytes = rows.reduce((sum, r) => sum + Buffer.byteLength(r.json), 0);
    expect(file.byteLength).toBe(textBytes + 500 * 72);
    // Twenty places over the whole file, texts and headers, each changed alone and put back.
    const fd = openSync(path, 'r+');
    try {
      for (let k = 0; k < 20; k++) {
        const at = Math.floor(((k + 0.5) / 20) * file.byteLength);
        writeSync(fd, Buffer.from([file[at]! ^ 0x04]), 0, 1, at);
        expect(() => [...staging.records()], `byte ${at} of ${file.byteLength}`).toThrow(
          /staging file does not read back as it was written/,
        );
        writeSync(fd, file.subarray(at, at + 1), 0, 1, at);
      }
    } finally {
      closeSync(fd);
    }
    expect(Array.from(staging.records(), recordText).sort()).toEqual(rows.map((r) => r.json).sort());
  } finally {
    staging.dispose();
  }
});

it('refuses to give back texts that changed on disk, with a clear error', () => {
  const rows = areaRows(500);
  const path = join(dir, 'staging-damaged');
  const staging = new Staging(path);
  try {
    staging.add(0, rows.map((r) => r.key).join(''), Buffer.from(rows.map((r) => r.json).join('\n')), noExtras(rows.length), rows.length);
    staging.dedupe();
    // One byte in the middle of the first compressed chunk (zstd frames start with 28 B5 2F FD).
    const at = readFileSync(path).indexOf(Buffer.from([0x28, 0xb5, 0x2f, 0xfd])) + 200;
    expect(at).toBeGreaterThanOrEqual(200);
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from([readFileSync(path)[at]! ^ 0x10]), 0, 1, at);
    closeSync(fd);
    expect(() => [...staging.records()]).toThrow(/staging file does not read back as it was written/);
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
