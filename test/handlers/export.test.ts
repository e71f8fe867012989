// Export jobs through the handler table and core.exportJobs: progress while running, the whole
// audience in the file when done, cancel leaving no file, the dialog dismissed starting nothing, and
// one audit entry per job, whatever its outcome.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ExportJobs } from '../../src/core/export/exportJobs';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import type { ExportJob } from '../../src/shared/contract';
import { SqlOracle } from '../support/oracle';
import { failure, startHandlers, type HandlerHarness } from './harness';

let t: HandlerHarness;
let oracle: SqlOracle;
beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'));
  oracle = new SqlOracle(inject('datasetPath'));
});
afterAll(async () => {
  oracle.close();
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function untilEnded(id: string): Promise<{ final: ExportJob; seen: ExportJob[] }> {
  const seen: ExportJob[] = [];
  for (;;) {
    const job = await t.h['export/status']({ id });
    seen.push(job);
    if (job.status !== 'running') return { final: job, seen };
    await sleep(2);
  }
}

describe('export/start, export/status', () => {
  it('writes the whole audience and reports progress, then an audit entry', async () => {
    const filters: [string, string[]][] = [['GENDER', ['F']]];
    const started = await t.h['export/start']({ state: 'CA', filters, format: 'jsonl', fileName: 'women of ca' });
    expect(started).toMatchObject({ status: 'running', format: 'jsonl', total: oracle.count('CA', filters) });
    expect(started.path).toBe(join(t.exportDir, 'women of ca.jsonl'));
    const { final, seen } = await untilEnded(started.id);
    expect(final).toMatchObject({ status: 'done', written: final.total, secondsLeft: 0 });
    expect(final.recordsPerSecond).toBeGreaterThan(0);
    const written = seen.map((j) => j.written);
    expect(written).toEqual([...written].sort((a, b) => a - b));
    const lines = readFileSync(final.path, 'utf8').trimEnd().split('\n');
    // In the file's order (households by ZIP in a generated file: docs/dataset-format.md, "Record order").
    expect(lines.map((l) => JSON.parse(l).PID)).toEqual(oracle.inStorageOrder(oracle.pids('CA', filters)));
    const [entry] = await t.h['audit/list']({ limit: 1 });
    expect(entry).toMatchObject({
      actor: 'UI',
      action: 'export',
      audience: { state: 'CA', filters },
      records: final.total,
      file: final.path,
      outcome: 'done',
    });
    expect(t.api.core.exportJobs.wasExported(final.path)).toBe(true);
  });

  it('names the file after the audience when no name is given', async () => {
    const job = await t.h['export/start']({ state: 'WY', filters: [], format: 'csv' });
    expect(job.path).toMatch(/audience-WY-\d{8}-\d{6}\.csv$/);
    const { final } = await untilEnded(job.id);
    expect(readFileSync(final.path, 'utf8').split('\r\n')[0]).toMatch(/^PID,HHID,/);
  });

  it('starts nothing when the save dialog is dismissed', async () => {
    t.dialog.answer = 'dismiss';
    try {
      const before = (await t.h['audit/list']({})).length;
      const job = await t.h['export/start']({ state: 'CA', filters: [], format: 'csv' });
      expect(job).toMatchObject({ id: '', status: 'cancelled', path: '' });
      expect((await t.h['audit/list']({})).length).toBe(before);
    } finally {
      t.dialog.answer = 'accept';
    }
  });

  it('refuses unknown job ids and invalid audiences', async () => {
    expect(await failure(t.h['export/status']({ id: 'nope' }))).toMatchObject({ code: 'not_found' });
    expect(await failure(t.h['export/cancel']({ id: 'nope' }))).toMatchObject({ code: 'not_found' });
    expect(await failure(t.h['export/start']({ state: 'CA', filters: [['LATITUDE', ['1']]], format: 'csv' }))).toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('export/cancel', () => {
  it('cancels at once: no file, no partial, audit entry "cancelled"', async () => {
    const job = await t.h['export/start']({ state: 'CA', filters: [], format: 'csv', fileName: 'cancel-me.csv' });
    const cancelled = await t.h['export/cancel']({ id: job.id });
    expect(['running', 'cancelled']).toContain(cancelled.status);
    const { final } = await untilEnded(job.id);
    expect(final.status).toBe('cancelled');
    expect(existsSync(job.path)).toBe(false);
    expect(readdirSync(t.exportDir).filter((f) => f.includes('cancel-me'))).toEqual([]);
    const [entry] = await t.h['audit/list']({ limit: 1 });
    expect(entry).toMatchObject({ outcome: 'cancelled', file: job.path, actor: 'UI' });
    // Cancelling an ended job changes nothing.
    expect((await t.h['export/cancel']({ id: job.id })).status).toBe('cancelled');
  });

  it('cancels mid-way, after progress was reported, and still leaves no file', async () => {
    // Small batches and a job runner of its own, so the export is surely still running when cancelled.
    const jobs = new ExportJobs(() => t.api.core.engine, t.api.core.auditLog, t.api.core.exportHistory, { batchSize: 10 });
    const audience = normalizeAudienceRequest({ state: 'CA', filters: [] });
    const path = join(t.exportDir, 'midway.jsonl');
    const job = await jobs.start({ audience, definition: { state: 'CA', filters: [] }, format: 'jsonl', path, actor: 'test key' });
    let status = jobs.status(job.id);
    while (status.written === 0) {
      await sleep(1);
      status = jobs.status(job.id);
    }
    expect(status.status).toBe('running');
    expect(status.written).toBeLessThan(status.total);
    jobs.cancel(job.id);
    const final = await jobs.settled(job.id);
    expect(final.status).toBe('cancelled');
    expect(final.written).toBeLessThan(final.total);
    expect(readdirSync(t.exportDir).filter((f) => f.includes('midway'))).toEqual([]);
    // The log names how far it got (its file was removed), not the audience's size.
    expect(t.api.core.auditLog.list(1)[0]).toMatchObject({ actor: 'test key', outcome: 'cancelled', file: path, records: final.written });
    expect(final.written).toBeGreaterThan(0);
  });

  it('records a failed export (unwritable folder) as failed, with a readable error', async () => {
    const jobs = new ExportJobs(() => t.api.core.engine, t.api.core.auditLog, t.api.core.exportHistory);
    const audience = normalizeAudienceRequest({ state: 'WY', filters: [] });
    const path = join(t.exportDir, 'no-such-folder', 'x.csv');
    const job = await jobs.start({ audience, definition: { state: 'WY', filters: [] }, format: 'csv', path, actor: 'UI' });
    const final = await jobs.settled(job.id);
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/Cannot write the export/);
    expect(final.secondsLeft).toBeNull();
    expect(t.api.core.auditLog.list(1)[0]).toMatchObject({ outcome: 'failed', file: path });
  });

  it('refuses a second running export to the same file', async () => {
    const jobs = new ExportJobs(() => t.api.core.engine, t.api.core.auditLog, t.api.core.exportHistory, { batchSize: 10 });
    const audience = normalizeAudienceRequest({ state: 'CA', filters: [] });
    const path = join(t.exportDir, 'twice.csv');
    const first = await jobs.start({ audience, definition: { state: 'CA', filters: [] }, format: 'csv', path, actor: 'UI' });
    await expect(jobs.start({ audience, definition: { state: 'CA', filters: [] }, format: 'csv', path, actor: 'UI' })).rejects.toThrow(
      /already running/,
    );
    await jobs.cancelAll();
    expect(jobs.status(first.id).status).toBe('cancelled');
  });
});
