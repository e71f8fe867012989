// A large export renders its batches on worker threads (renderBatches.ts): the file must be the
// same bytes as when every batch is rendered on the calling thread, in both formats; a batch that
// cannot be rendered, or a cancel while batches are out on the workers, fails the export without
// leaving a file or a partial behind.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RecordStream } from '../../src/core/audience/engine';
import { overrideSettings } from '../../src/core/config';
import { Dataset } from '../../src/core/dataset/dataset';
import { exportRecords } from '../../src/core/export/exportAudience';
import { EmbeddedEngine } from '../../src/core/query/embeddedEngine';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';

let dir: string;
let engine: EmbeddedEngine;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-render-workers-'));
  engine = new EmbeddedEngine(Dataset.open(inject('datasetPath')), { backgroundVerify: false });
});
afterAll(() => {
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

const AUDIENCE = normalizeAudienceRequest({ state: 'CA', filters: [['GENDER', ['F']]] });

describe('export rendered on workers', () => {
  for (const format of ['csv', 'jsonl'] as const)
    it(`writes the same ${format} bytes as the calling thread, in the same order`, async () => {
      const onWorkers = join(dir, `workers.${format}`);
      const here = join(dir, `here.${format}`);
      // Small batches: many in flight at once, so order is really at stake.
      const a = await exportRecords(engine.records(AUDIENCE), { format, outPath: onWorkers, workersFrom: 0, batchSize: 97 });
      const b = await exportRecords(engine.records(AUDIENCE), { format, outPath: here, workersFrom: Infinity, batchSize: 97 });
      expect(a.renderWorkers).toBeGreaterThan(0);
      expect(b.renderWorkers).toBe(0);
      expect(a.records).toBeGreaterThan(500);
      expect(a.records).toBe(b.records);
      expect(a.bytes).toBe(b.bytes);
      expect(readFileSync(onWorkers).equals(readFileSync(here))).toBe(true);
    });

  it('writes the same bytes with the workers turned off', async () => {
    const restore = overrideSettings({ exportWorkers: false });
    try {
      const off = join(dir, 'off.csv');
      const result = await exportRecords(engine.records(AUDIENCE), { format: 'csv', outPath: off, workersFrom: 0, batchSize: 97 });
      expect(result.renderWorkers).toBe(0);
      expect(readFileSync(off).equals(readFileSync(join(dir, 'workers.csv')))).toBe(true);
    } finally {
      restore();
    }
  });

  it('fails on a record it cannot render, and leaves no file', async () => {
    const good = engine.records(AUDIENCE);
    const stream: RecordStream = {
      total: good.total,
      async *batches(size) {
        let n = 0;
        for await (const batch of good.batches(size)) {
          // The third batch holds a record that is not a stored record's text.
          yield ++n === 3 ? [...batch.slice(1), '["cut short'] : batch;
        }
      },
    };
    const out = join(dir, 'broken.jsonl');
    await expect(exportRecords(stream, { format: 'jsonl', outPath: out, workersFrom: 0, batchSize: 97 })).rejects.toThrow(
      /render|Malformed/,
    );
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('broken'))).toEqual([]);
  });

  it('stops on cancel while batches are out on the workers, and leaves no file', async () => {
    const controller = new AbortController();
    const good = engine.records(AUDIENCE);
    const stream: RecordStream = {
      total: good.total,
      async *batches(size) {
        let n = 0;
        for await (const batch of good.batches(size)) {
          if (++n === 4) controller.abort();
          yield batch;
        }
      },
    };
    const out = join(dir, 'cancelled.csv');
    await expect(
      exportRecords(stream, { format: 'csv', outPath: out, workersFrom: 0, batchSize: 97, signal: controller.signal }),
    ).rejects.toThrow(/cancelled/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('cancelled'))).toEqual([]);
  });
});
