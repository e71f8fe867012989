// Importing from the app, through the handler table over a real core: only picked files are read,
// the header mapping comes before anything is written, the import runs in the background with
// progress, asks before switching (the current dataset beside the new one's counts), the app then
// answers from the new dataset while keys and saved audiences stay, previous datasets are kept up to
// the history's size (older ones the app made are deleted), keeping the current one switches
// nothing, a cancel or a failure changes nothing, and every import is in the audit log.
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { homeLayout } from '../../src/core/appState/homeLayout';
import type { ImportJob } from '../../src/shared/contract';
import { FIELDS, fieldIndex } from '../../src/shared/fields';
import { fixture, integrity, readRecords, tempDir, writeCsv } from '../import/helpers';
import { failure, startHandlers, type HandlerHarness } from './harness';

let t: HandlerHarness;
let dir: string;
/** 30,000 records of the shared test dataset in a shuffled order: staged, sorted, written. */
let shuffled: string;
const original = (): string => inject('datasetPath');

beforeAll(async () => {
  t = await startHandlers(original());
  dir = tempDir();
  const records = readRecords(original());
  // A fixed permutation (no Math.random): the same file every run.
  for (let i = records.length - 1, s = 12345; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [records[i], records[j]] = [records[j]!, records[i]!];
  }
  shuffled = join(dir, 'vendor-shuffled.csv');
  writeCsv(shuffled, records);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pick(...files: string[]): Promise<string[]> {
  t.importPick.files = files;
  return (await t.h['import/pick']({})).files;
}

/** Follows an import to its end, answering its confirm step with `switchTo` (the user's choice). */
async function untilEnded(id: string, switchTo = true): Promise<{ final: ImportJob; seen: ImportJob[] }> {
  const seen: ImportJob[] = [];
  for (;;) {
    const job = await t.h['import/status']({ id });
    seen.push(job);
    if (job.status !== 'running') return { final: job, seen };
    if (job.phase === 'confirm') await t.h['import/confirm']({ id, switch: switchTo });
    await sleep(5);
  }
}

const currentPath = async (): Promise<string> => (await t.h['dataset/info']({})).path;
const PID = fieldIndex('PID');
/** Every record of a dataset file as its values' JSON, by PID (value for value, cheap to compare). */
const recordTexts = (path: string): Map<string, string> => new Map(readRecords(path).map((r) => [r[PID] as string, JSON.stringify(r)]));

describe('import/pick and import/inspect', () => {
  it('refuses files that were not picked, whatever the path', async () => {
    const e = await failure(t.h['import/inspect']({ files: [fixture('missing-and-extra.csv')] }));
    expect(e).toMatchObject({ code: 'forbidden', field: 'files' });
    await pick(fixture('missing-and-extra.csv'));
    // A path spelled differently that leads elsewhere is still a different file.
    expect(await failure(t.h['import/start']({ files: [`${fixture('missing-and-extra.csv')}/../bad-rows.csv`] }))).toMatchObject({
      code: 'forbidden',
    });
    expect(await failure(t.h['import/inspect']({ files: ['/etc/passwd'] }))).toMatchObject({ code: 'forbidden' });
  });

  it('maps every header column onto a record field, before anything is written', async () => {
    const files = await pick(fixture('missing-and-extra.csv'), fixture('pipe-gzipped.dat'));
    const before = existsSync(homeLayout(t.api.core.homeDir).datasets) ? readdirSync(homeLayout(t.api.core.homeDir).datasets) : [];
    const plan = await t.h['import/inspect']({ files });
    expect(plan.ready).toBe(true);
    const [csv, gz] = plan.files;
    expect(csv).toMatchObject({ name: 'missing-and-extra.csv', gzip: false, delimiter: ',', error: null, absentFields: FIELDS.length - 4 });
    expect(csv!.columns).toEqual([
      { header: 'PID', field: 'PID' },
      { header: 'STATE', field: 'STATE' },
      { header: 'GENDER', field: 'GENDER' },
      { header: 'VENDOR_ID', field: null },
      { header: 'MS_BOOKS', field: 'MS_BOOKS' },
      { header: 'notes', field: null },
    ]);
    expect(gz).toMatchObject({ name: 'pipe-gzipped.dat', gzip: true, delimiter: '|', error: null });
    expect(existsSync(homeLayout(t.api.core.homeDir).datasets) ? readdirSync(homeLayout(t.api.core.homeDir).datasets) : []).toEqual(before);
  });

  it('says which file cannot be imported and why, and is not ready', async () => {
    const noGender = join(dir, 'no-gender.csv');
    writeFileSync(noGender, 'PID,STATE\nA0000000000000000000000000000001,CA\n');
    const files = await pick(fixture('missing-and-extra.csv'), noGender);
    const plan = await t.h['import/inspect']({ files });
    expect(plan.ready).toBe(false);
    expect(plan.files[0]!.error).toBeNull();
    // Its columns are shown all the same, so that one can be mapped onto GENDER.
    expect(plan.files[1]).toMatchObject({
      name: 'no-gender.csv',
      columns: [
        { header: 'PID', field: 'PID' },
        { header: 'STATE', field: 'STATE' },
      ],
    });
    expect(plan.files[1]!.error).toMatch(/^the header has no GENDER column/);
  });

  it('maps a vendor column onto a record field (or skips one) with `columns`; a field that does not exist is refused', async () => {
    const renamed = join(dir, 'renamed.csv');
    writeFileSync(renamed, 'Person Key,STATE,Sex,Notes\nA0000000000000000000000000000001,CA,F,x\n');
    const files = await pick(renamed);
    const before = await t.h['import/inspect']({ files });
    expect(before.files[0]!.error).toMatch(/no PID, GENDER columns/);
    expect(before.files[0]!.columns.map((c) => c.field)).toEqual([null, 'STATE', null, null]);
    const columns = { 'person key': 'PID', Sex: 'GENDER', Notes: '' };
    const after = await t.h['import/inspect']({ files, columns });
    expect(after.ready).toBe(true);
    expect(after.files[0]!.columns.map((c) => c.field)).toEqual(['PID', 'STATE', 'GENDER', null]);
    expect(after.files[0]!.absentFields).toBe(FIELDS.length - 3);
    expect(await failure(t.h['import/inspect']({ files, columns: { Sex: 'SEXX' } }))).toMatchObject({
      code: 'invalid_request',
      field: 'columns',
      message: expect.stringContaining('"SEXX"'),
    });
    expect(await failure(t.h['import/start']({ files, columns: { Sex: 'SEXX' } }))).toMatchObject({ field: 'columns' });
  });
});

describe('import/start', () => {
  it('imports in the background with progress, then the app answers from the new dataset', async () => {
    const key = await t.h['keys/create']({ name: 'kept' });
    const saved = await t.h['audiences/save']({ name: 'kept audience', state: 'CA', filters: [['GENDER', ['F']]] });
    const files = await pick(shuffled, fixture('missing-and-extra.csv'));
    const started = await t.h['import/start']({ files });
    expect(started).toMatchObject({ status: 'running', phase: 'reading', files, result: null });
    expect(await failure(t.h['import/start']({ files }))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/already running/),
    });
    expect((await t.h['import/current']({})).job?.id).toBe(started.id);

    const rows = inject('testRows');
    const before = await currentPath();
    // It asks first: complete, counted, nothing switched until the user says so.
    const early: ImportJob[] = [];
    let asking = await t.h['import/status']({ id: started.id });
    for (let i = 0; i < 60_000 && asking.phase !== 'confirm' && asking.status === 'running'; i++) {
      early.push(asking);
      await sleep(5);
      asking = await t.h['import/status']({ id: started.id });
    }
    expect(asking).toMatchObject({ status: 'running', phase: 'confirm', switched: null });
    expect(asking.current).toMatchObject({ records: rows });
    expect(asking.result).toMatchObject({ records: rows + 2, rejected: 0 });
    await sleep(50);
    expect(await currentPath()).toBe(before);
    // Too late to cancel: the import has succeeded; the confirm step decides.
    expect(await t.h['import/cancel']({ id: started.id })).toMatchObject({ status: 'running', phase: 'confirm' });
    const { final, seen: after } = await untilEnded(started.id);
    const seen = [...early, ...after];
    expect(final.status, final.error).toBe('done');
    expect(final.switched).toBe(true);
    expect(final.result).toMatchObject({ read: rows + 2, imported: rows + 2, rejected: 0, replaced: 0, records: rows + 2 });
    expect(final.notices).toEqual([`${fixture('missing-and-extra.csv')}: ignored 2 unknown columns: VENDOR_ID, notes`]);
    // Shuffled rows are read, then sorted and written: both phases were seen, each going up to 100%.
    const phases = [...new Set(seen.map((j) => j.phase))];
    expect(phases[0]).toBe('reading');
    expect(phases).toContain('writing');
    for (const phase of ['reading', 'writing'] as const) {
      const pcts = seen.filter((j) => j.phase === phase).map((j) => j.percent);
      expect(pcts).toEqual([...pcts].sort((a, b) => a - b));
      expect(Math.max(...pcts)).toBeLessThanOrEqual(100);
    }
    expect(final).toMatchObject({ percent: 100, secondsLeft: 0, phase: 'finished' });

    const dataset = final.result!.dataset;
    expect(dataset.startsWith(homeLayout(t.api.core.homeDir).datasets)).toBe(true);
    expect(await t.h['dataset/info']({})).toMatchObject({ path: dataset, records: rows + 2 });
    expect(integrity(dataset)).toEqual({ check: 'ok', records: rows + 2 });
    // The same people as the source dataset (plus the two fixture rows), value for value.
    const imported = recordTexts(dataset);
    const differing = [...recordTexts(original())].filter(([pid, text]) => imported.get(pid) !== text).map(([pid]) => pid);
    expect(differing).toEqual([]);
    expect((await t.h['audience/count']({ state: 'DC', filters: [['MS_BOOKS', [7]]] })).total).toBeGreaterThanOrEqual(1);
    expect(existsSync(original())).toBe(true);

    expect((await t.h['keys/list']({})).map((k) => k.id)).toContain(key.info.id);
    expect(await t.h['audiences/list']({})).toContainEqual(saved);
    const [entry] = await t.h['audit/list']({ limit: 1 });
    expect(entry).toMatchObject({ actor: 'UI', action: 'import', records: rows + 2, file: dataset, outcome: 'done' });
    expect(final.rejectsPath).toBe(final.result!.rejectsPath);
    expect(t.api.core.importJobs.wroteRejects(final.rejectsPath!)).toBe(true);
  });

  it('keeps the previous datasets up to the history size; older ones the app made are deleted once the next import is in use', async () => {
    // A history of 0 previous datasets: the one before goes as soon as nothing reads it.
    expect((await t.h['datasets/keep']({ keep: 0 })).keep).toBe(0);
    const before = await currentPath();
    expect(before.startsWith(homeLayout(t.api.core.homeDir).datasets)).toBe(true);
    const files = await pick(fixture('missing-and-extra.csv'));
    const { final } = await untilEnded((await t.h['import/start']({ files })).id);
    expect(final.status).toBe('done');
    expect(await currentPath()).toBe(final.result!.dataset);
    // The previous dataset is closed and removed just after the switch.
    await vi.waitFor(() => expect(existsSync(before)).toBe(false));
    expect(readdirSync(homeLayout(t.api.core.homeDir).datasets).sort()).toEqual(
      [final.result!.dataset, final.result!.rejectsPath].map((p) => p.split('/').pop()).sort(),
    );
    // With the default of 3, the previous one stays, and the app can switch back to it.
    await t.h['datasets/keep']({ keep: 3 });
    const next = (await untilEnded((await t.h['import/start']({ files: await pick(fixture('missing-and-extra.csv')) })).id)).final;
    // Once the switch has retired it, the previous dataset is still there: kept, not pruned.
    await vi.waitFor(async () =>
      expect((await t.h['datasets/list']({})).datasets.find((d) => d.path === final.result!.dataset)?.inUse).toBe(false),
    );
    expect(existsSync(final.result!.dataset)).toBe(true);
    const listed = await t.h['datasets/list']({});
    expect(listed.datasets.find((d) => d.active)?.path).toBe(next.result!.dataset);
    const back = listed.datasets.find((d) => d.path === final.result!.dataset)!;
    expect(back).toMatchObject({ active: false, managed: true, sources: ['missing-and-extra.csv'] });
    expect((await t.h['datasets/switch']({ id: back.id })).active).toBe(true);
    expect(await currentPath()).toBe(final.result!.dataset);
  });

  it('keeping the current dataset switches nothing; the new one waits in the history', async () => {
    const before = await currentPath();
    const { final } = await untilEnded((await t.h['import/start']({ files: await pick(fixture('missing-and-extra.csv')) })).id, false);
    expect(final).toMatchObject({ status: 'done', switched: false, phase: 'finished' });
    expect(await currentPath()).toBe(before);
    const entry = (await t.h['datasets/list']({})).datasets.find((d) => d.id === final.result!.datasetId)!;
    expect(entry).toMatchObject({ path: final.result!.dataset, active: false, records: final.result!.records });
    expect((await t.h['audit/list']({ limit: 1 }))[0]).toMatchObject({ action: 'import', outcome: 'done', file: final.result!.dataset });
  });

  it('a cancel leaves the dataset in use, and nothing behind', async () => {
    const before = await currentPath();
    const listed = readdirSync(homeLayout(t.api.core.homeDir).datasets).sort();
    const files = await pick(shuffled);
    const started = await t.h['import/start']({ files });
    for (let i = 0; i < 2000 && (await t.h['import/status']({ id: started.id })).rowsRead === 0; i++) await sleep(2);
    const cancelling = await t.h['import/cancel']({ id: started.id });
    expect(['running', 'cancelled']).toContain(cancelling.status);
    const { final } = await untilEnded(started.id);
    expect(final).toMatchObject({ status: 'cancelled', result: null, phase: 'finished' });
    expect(await currentPath()).toBe(before);
    expect(readdirSync(homeLayout(t.api.core.homeDir).datasets).sort()).toEqual(listed);
    const [entry] = await t.h['audit/list']({ limit: 1 });
    expect(entry).toMatchObject({ action: 'import', outcome: 'cancelled', records: 0, file: 'vendor-shuffled.csv' });
  });

  it('fails without switching when no row can be imported, and keeps the rejects file that says why', async () => {
    const before = await currentPath();
    const allBad = join(dir, 'all-bad.csv');
    writeFileSync(allBad, 'PID,STATE,GENDER\nnot-a-pid,CA,F\nB0000000000000000000000000000001,ZZ,F\n');
    const { final } = await untilEnded((await t.h['import/start']({ files: await pick(allBad) })).id);
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/None of the 2 rows could be imported/);
    expect(final.rejectsPath && existsSync(final.rejectsPath)).toBe(true);
    expect(t.api.core.importJobs.wroteRejects(final.rejectsPath!)).toBe(true);
    expect(await currentPath()).toBe(before);
    expect((await t.h['audit/list']({ limit: 1 }))[0]).toMatchObject({ action: 'import', outcome: 'failed' });
  });
});

describe('switching datasets under a running export', () => {
  it('lets the export finish from the old dataset, then closes it', async () => {
    const core = t.api.core;
    const imported = await currentPath();
    await core.switchDataset(original());
    const job = await t.h['export/start']({ state: 'CA', filters: [], format: 'jsonl', fileName: 'during-switch' });
    expect(job).toMatchObject({ status: 'running', written: 0 });
    expect(job.total).toBeGreaterThan(2000); // more than one batch: the export is mid-way at the switch
    let closedAt = 0;
    const closed = core.switchDataset(imported).then((p) => ((closedAt = performance.now()), p));
    expect(await currentPath()).toBe(imported);
    const ended = await core.exportJobs.settled(job.id);
    const endedAt = performance.now();
    expect(ended).toMatchObject({ status: 'done', written: job.total });
    expect(readFileSync(ended.path, 'utf8').trimEnd().split('\n')).toHaveLength(job.total);
    expect(await closed).toBe(original());
    expect(closedAt).toBeGreaterThanOrEqual(endedAt - 1);
  });
});
