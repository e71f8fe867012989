// Whom an export wrote: a finished export remembers its people under its audit entry, the audit
// list marks it excludable, and its matcher names exactly the people in the file (and the plain-SQL
// oracle's answer for the audience); a failed export remembers nobody.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { ExportHistory } from '../../src/core/lists/exportHistory';
import { normalizeAudience } from '../../src/shared/audienceRequest';
import type { Filter } from '../../src/shared/contract';
import { SqlOracle } from '../support/oracle';
import { readPeople, type PersonValues } from './listData';

let dir: string;
let core: Core;
let oracle: SqlOracle;
let people: PersonValues[];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-history-'));
  core = createCore({ homeDir: join(dir, 'home'), datasetPath: inject('datasetPath') });
  oracle = new SqlOracle(inject('datasetPath'));
  people = readPeople(inject('datasetPath'));
});
afterAll(async () => {
  oracle.close();
  await core.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function exportTo(state: string, filters: Filter[], path: string) {
  const definition = { state, filters };
  const job = await core.audiences.startExport(normalizeAudience(definition), { definition, format: 'csv', path, actor: 'test' });
  return core.exportJobs.settled(job.id);
}

const named = (history: ExportHistory, id: number | string) => {
  const matcher = history.matcher(id)!;
  expect(matcher.fields).toEqual(['PID']);
  return people.filter((p) => matcher.matches([p.PID])).map((p) => p.PID);
};

describe('an export through the job registry', () => {
  it('remembers exactly whom it wrote; the audit list says it can be excluded', async () => {
    const filters: Filter[] = [['GENDER', ['F']]];
    const done = await exportTo('CA', filters, join(dir, 'women.csv'));
    expect(done.status).toBe('done');
    const [entry] = core.auditLog.list(1);
    expect(entry).toMatchObject({ action: 'export', outcome: 'done', records: done.total, excludable: true });
    expect(core.exportHistory.has(entry!.id)).toBe(true);
    const inFile = readFileSync(done.path, 'utf8')
      .trimEnd()
      .split('\r\n')
      .slice(1)
      .map((line) => line.slice(0, 32));
    const want = oracle.pids('CA', filters);
    // The file in the dataset's order; the history remembers them as a set (listed in PID order).
    expect(inFile).toEqual(oracle.inStorageOrder(want));
    expect(named(core.exportHistory, entry!.id)).toEqual(want);
    // The id as `exclude` writes it ("export:<id>"): a string.
    expect(core.exportHistory.matcher(String(entry!.id))!.key).toBe(`export:${entry!.id}`);
    expect(await core.engine.countMatching(core.exportHistory.matcher(entry!.id)!)).toBe(want.length);
  });

  it('an export that failed remembers nobody and is not excludable', async () => {
    const failed = await exportTo('WY', [], join(dir, 'no-such-folder', 'wy.csv'));
    expect(failed.status).toBe('failed');
    const [entry] = core.auditLog.list(1);
    expect(entry).toMatchObject({ outcome: 'failed', excludable: false });
    expect(core.exportHistory.has(entry!.id)).toBe(false);
    expect(core.exportHistory.matcher(entry!.id)).toBeUndefined();
  });

  it('an empty export is remembered and names nobody', async () => {
    const done = await exportTo('WY', [['AGE', ['999']]], join(dir, 'nobody.csv'));
    expect(done).toMatchObject({ status: 'done', total: 0 });
    const [entry] = core.auditLog.list(1);
    expect(entry!.excludable).toBe(true);
    expect(named(core.exportHistory, entry!.id)).toEqual([]);
  });
});

describe('ExportHistory', () => {
  it('packs PIDs in any order and case, each once, and finds them', () => {
    const history = new ExportHistory(core.appState);
    const auditId = core.auditLog.record({
      actor: 'test',
      action: 'export',
      audience: { state: 'CA', filters: [] },
      records: 4,
      file: 'x',
      outcome: 'done',
    }).id;
    const chosen = [people[900]!.PID, people[3]!.PID, people[27_000]!.PID];
    history.remember(auditId, [chosen[0]!.toLowerCase(), chosen[1]!, chosen[2]!, chosen[1]!]);
    expect(named(history, auditId)).toEqual([...chosen].sort());
    expect(history.matcher(auditId)!.matches(['not a pid'])).toBe(false);
  });

  it('an unknown or malformed id has no matcher', () => {
    expect(core.exportHistory.matcher(987654)).toBeUndefined();
    expect(core.exportHistory.matcher('12abc')).toBeUndefined();
    expect(core.exportHistory.matcher('')).toBeUndefined();
  });
});
