// Two small pieces of the import's sorted path: the PID set that catches a PID seen before, and
// DatasetWriter.appendWithJson (append with the record's JSON already made) writing the same file
// as append.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetWriter } from '../../src/core/dataset/datasetWriter';
import { generateRecords } from '../../src/core/generate';
import { PidSet } from '../../src/core/import/pidSet';
import { pidOf, tempDir } from './helpers';

let dir: string;
beforeAll(() => {
  dir = tempDir('audience-desk-import-units-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('PidSet', () => {
  it('says whether a PID was added before, exactly (PIDs differing in any one digit are different)', () => {
    const set = new PidSet();
    const seen = new Set<string>();
    let x = 1;
    const next = (): number => (x = (x * 1103515245 + 12345) % 2147483648);
    const hex = '0123456789ABCDEF';
    for (let i = 0; i < 30_000; i++) {
      // Half random PIDs, half from a small pool (repeats), some differing from a pool PID in one digit.
      let pid = Array.from({ length: 32 }, () => hex[next() % 16]).join('');
      if (i % 2) pid = pidOf(next() % 5000);
      if (i % 7 === 0) pid = pidOf(next() % 5000).slice(0, 31) + hex[next() % 16];
      const key = `CA${pid}`;
      expect(set.add(key, 2)).toBe(!seen.has(pid));
      seen.add(pid);
    }
    expect(set.size).toBe(seen.size);
    expect(new PidSet().add('0'.repeat(32), 0)).toBe(true); // the all-zero PID is a PID
  });
});

describe('DatasetWriter.appendWithJson', () => {
  const dump = (path: string): unknown => {
    const db = new Database(path, { readonly: true });
    try {
      return {
        records: db.prepare('SELECT _pos, record FROM records ORDER BY _pos').all(),
        columns: db.prepare('SELECT * FROM columns ORDER BY name').all(),
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
