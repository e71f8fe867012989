// Two small pieces of the import: the PID fingerprints that say whether a PID came twice, and
// DatasetWriter.appendWithJson (append with the record's JSON already made) writing the same file
// as append.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatasetSql } from '../support/datasetSql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetWriter } from '../../src/core/dataset/write/datasetWriter';
import { generateRecords } from '../../src/core/generate';
import { PidFingerprints } from '../../src/core/import/stage/pidFingerprints';
import { pidOf, tempDir } from './helpers';

let dir: string;
beforeAll(() => {
  dir = tempDir('audience-desk-import-units-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('PidFingerprints', () => {
  const hex = '0123456789ABCDEF';
  // 32 hex digits that look random (an MD5 is 128 bits, as a PID is), the same on every run.
  const randomPid = (_: unknown, i: number): string => createHash('md5').update(`pid ${i}`).digest('hex').toUpperCase();
  const fingerprintsOf = (pids: readonly string[]): PidFingerprints => {
    const set = new PidFingerprints();
    for (const pid of pids) set.add(`CA${pid}`, 2);
    return set;
  };

  it('finds a PID that came twice, wherever the two are', () => {
    const pids = Array.from({ length: 150_000 }, randomPid);
    for (const [first, second] of [
      [0, 1],
      [0, 149_999],
      [70_000, 140_000],
      [65_535, 65_536],
    ]) {
      const copy = pids.slice();
      copy[second!] = copy[first!]!;
      expect(fingerprintsOf(copy).mayRepeat()).toBe(true);
    }
    expect(fingerprintsOf(['0'.repeat(32), '0'.repeat(32)]).mayRepeat()).toBe(true); // the all-zero PID is a PID
  });

  it('tells different PIDs apart, also those differing in one digit or counting up', () => {
    const random = Array.from({ length: 150_000 }, randomPid);
    expect(new Set(random).size).toBe(random.length);
    const oneDigit = Array.from(
      { length: 16 * 32 },
      (_, i) => `${'7'.repeat(32)}`.slice(0, i >> 4) + hex[i & 15] + '7'.repeat(31 - (i >> 4)),
    );
    const counting = Array.from({ length: 100_000 }, (_, i) => pidOf(i));
    expect(new Set(oneDigit).size).toBe(481); // 32 positions x 15 other digits, plus all sevens
    for (const pids of [random, [...new Set(oneDigit)], counting]) expect(fingerprintsOf(pids).mayRepeat()).toBe(false);
    expect(new PidFingerprints().mayRepeat()).toBe(false);
  });
});

describe('DatasetWriter.appendWithJson', () => {
  const dump = (path: string): unknown => {
    const db = openDatasetSql(path);
    try {
      return {
        records: db.prepare('SELECT _pos, record FROM records ORDER BY _pos').all(),
        columns: db.prepare('SELECT * FROM columns ORDER BY name').all(),
        vectors: db.prepare('SELECT * FROM vector_chunks ORDER BY name, chunk').all(),
        states: db.prepare('SELECT * FROM states ORDER BY state').all(),
      };
    } finally {
      db.close();
    }
  };

  it('writes the same dataset as append, and still refuses records out of order', () => {
    const records = [...generateRecords(300, 5)].map((r) => r as unknown as Array<string | number>);
    const a = new DatasetWriter(join(dir, 'append.sqlite'), {}, 50);
    const b = new DatasetWriter(join(dir, 'with-json.sqlite'), {}, 50);
    for (const values of records) {
      a.append(values);
      b.appendWithJson(values, JSON.stringify(values));
    }
    expect(() => b.appendWithJson(records[0]!, JSON.stringify(records[0]))).toThrow(/ascending \(STATE, PID\) order/);
    a.finish();
    b.finish();
    expect(dump(join(dir, 'with-json.sqlite'))).toEqual(dump(join(dir, 'append.sqlite')));
  });
});
