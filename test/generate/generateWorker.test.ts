// The generator's worker and the records the writing thread makes between its batches: the same
// records as on one thread, and the same file, table by table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatasetSql } from '../support/datasetSql';
import { fieldIndex } from '../../src/shared/fields';
import { generateDataset, generateStored } from '../../src/core/generate';
import { workerChunks } from '../../src/core/generate/workerRecords';
import { overrideSettings } from '../../src/core/config';

describe('generateDataset on a worker thread', () => {
  it('generates and codes on a worker thread the same records, in storage order, and writes the same file as on one thread', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audience-desk-generate-worker-'));
    const dump = (path: string): unknown => {
      const db = openDatasetSql(path);
      try {
        return {
          records: db.prepare('SELECT _pos, record FROM records ORDER BY _pos').raw().all(),
          columns: db.prepare('SELECT * FROM columns ORDER BY name').raw().all(),
          vectors: db.prepare('SELECT * FROM vector_chunks ORDER BY name, chunk').raw().all(),
          ranks: db.prepare('SELECT * FROM pid_ranks ORDER BY chunk').raw().all(),
          order: db.prepare('SELECT * FROM pid_order ORDER BY chunk').raw().all(),
          listKeys: db.prepare('SELECT * FROM list_keys ORDER BY name, chunk').raw().all(),
          states: db.prepare('SELECT * FROM states ORDER BY state').raw().all(),
          meta: db.prepare("SELECT * FROM meta WHERE key <> 'created_at' ORDER BY key").raw().all(),
        };
      } finally {
        db.close();
      }
    };
    try {
      const chunks = workerChunks(2500, 7, 300);
      expect(chunks).toBeDefined();
      const taken = [...chunks!];
      const batches = taken.flatMap((c) => ('batch' in c ? [c.batch] : []));
      // Both kinds of chunk, in turn: two of every three made by the worker.
      expect(taken.map((c) => 'batch' in c).slice(0, 6)).toEqual([true, true, false, true, true, false]);
      const texts = taken.flatMap((c) =>
        'batch' in c
          ? [...c.batch.ends.subarray(0, c.batch.count)].map((end, i) =>
              Buffer.from(c.batch.text.subarray(i === 0 ? 0 : c.batch.ends[i - 1], end)).toString('utf8'),
            )
          : c.records.map((r) => JSON.stringify(r.record)),
      );
      const ranks = taken.flatMap((c) => ('batch' in c ? [...c.batch.ranks.subarray(0, c.batch.count)] : c.records.map((r) => r.rank)));
      const expected = [...generateStored(2500, 7)];
      expect(texts).toEqual(expected.map((r) => JSON.stringify(r.record)));
      expect(ranks).toEqual(expected.map((r) => r.rank));
      const states = taken.flatMap((c) => ('batch' in c ? c.batch.states : c.records.map((r) => r.record[fieldIndex('STATE')])));
      expect(states).toEqual(expected.map((r) => r.record[fieldIndex('STATE')]));
      // Some field passed the limit of 300 distinct values in these batches, so the file below tests the passing.
      expect(batches.some((b) => b.passed.length > 0)).toBe(true);
      generateDataset({ rows: 4321, seed: 3, out: join(dir, 'worker.sqlite'), dictionaryLimit: 300 });
      const restore = overrideSettings({ generateWorker: false });
      try {
        expect(workerChunks(10, 1, 300)).toBeUndefined();
        generateDataset({ rows: 4321, seed: 3, out: join(dir, 'thread.sqlite'), dictionaryLimit: 300 });
      } finally {
        restore();
      }
      expect(dump(join(dir, 'worker.sqlite'))).toEqual(dump(join(dir, 'thread.sqlite')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
