// The app's audiences over several states (`states`) through the handler table, against the SQL
// oracle on the same dataset file: counts add up state by state, pages run through the states in code
// order, breakdowns and cross-tabs add up, one export file holds every state's records, a sample of a
// size is shared out, and the HTTP API still refuses `states`. Also workspace/get and workspace/set.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pageSlices, shareSample } from '../../src/core/audience/severalStates';
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

const women: [string, string[]][] = [['GENDER', ['F']]];
const STATES = ['TX', 'CA', 'NY'];
const ORDERED = ['CA', 'NY', 'TX'];

describe('several states', () => {
  it('counts each state and adds them up, in state order', async () => {
    const answer = await t.h['audience/count']({ state: 'TX', states: STATES, filters: women });
    const expected = ORDERED.map((state) => ({ state, count: oracle.count(state, women) }));
    expect(answer.byState).toEqual(expected);
    expect(answer.total).toBe(expected.reduce((a, s) => a + s.count, 0));
    expect(answer.steps).toMatchObject({ matched: answer.total, total: answer.total });
    // One state: the same answer as before, with its one entry.
    const one = await t.h['audience/count']({ state: 'CA', filters: women });
    expect(one.byState).toEqual([{ state: 'CA', count: oracle.count('CA', women) }]);
  });

  it('pages through the states in code order, across the boundary between two', async () => {
    const ca = oracle.count('CA', women);
    const page = await t.h['audience/preview']({ state: 'CA', states: STATES, filters: women, skip: ca - 3, limit: 6 });
    expect(page.total).toBe(ca + oracle.count('NY', women) + oracle.count('TX', women));
    expect(page.results.map((r) => r.pid)).toEqual([...oracle.pids('CA', women, 3, ca - 3), ...oracle.pids('NY', women, 3, 0)]);
    expect(page.results.map((r) => r.state)).toEqual(['CA', 'CA', 'CA', 'NY', 'NY', 'NY']);
    const records = await t.h['audience/search']({ state: 'CA', states: STATES, filters: women, skip: ca - 1, limit: 2 });
    expect(records.results.map((r) => r.PID)).toEqual([...oracle.pids('CA', women, 1, ca - 1), ...oracle.pids('NY', women, 1, 0)]);
  });

  it('adds breakdowns and cross-tabs up by value', async () => {
    const b = await t.h['audience/breakdown']({ state: 'CA', states: STATES, filters: [], field: 'GENDER' });
    const byValue = Object.fromEntries(b.values.map((v) => [v.value, v.count]));
    for (const g of ['F', 'M']) expect(byValue[g]).toBe(ORDERED.reduce((a, s) => a + oracle.count(s, [['GENDER', [g]]]), 0));
    expect(b.total).toBe(ORDERED.reduce((a, s) => a + oracle.count(s), 0));
    const x = await t.h['audience/crosstab']({ state: 'CA', states: STATES, filters: [], rows: 'GENDER', columns: 'HOMEOWNERC' });
    const expected = new Map<string, number>();
    for (const s of ORDERED)
      for (const [k, n] of oracle.pairCounts(s, [], 'GENDER', 'HOMEOWNERC')) expected.set(k, (expected.get(k) ?? 0) + n);
    x.rowValues.forEach((r, i) =>
      x.columnValues.forEach((c, j) => expect(x.counts[i]![j]).toBe(expected.get(`${String(r)}|${String(c)}`) ?? 0)),
    );
  });

  it('shares a sample of a size among the states, so the whole audience has that size', async () => {
    const answer = await t.h['audience/count']({ state: 'CA', states: STATES, filters: [], sample: { size: 100, seed: 3 } });
    expect(answer.total).toBe(100);
    const everyone = ORDERED.map((s) => oracle.count(s));
    expect(answer.byState?.map((s) => s.count)).toEqual(shareSample(100, everyone));
    expect(answer.steps.matched).toBe(everyone.reduce((a, b) => a + b, 0));
  });

  it('exports every state into one file, state after state, and names the states in the audit log', async () => {
    const started = await t.h['export/start']({ state: 'NY', states: ['NY', 'DE'], filters: women, format: 'jsonl' });
    expect(started.path).toMatch(/audience-DE-NY-/);
    let job: ExportJob = started;
    while (job.status === 'running') {
      await new Promise((r) => setTimeout(r, 5));
      job = await t.h['export/status']({ id: started.id });
    }
    expect(job.status).toBe('done');
    const pids = readFileSync(job.path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { PID: string }).PID);
    // State after state, each in the file's order.
    expect(pids).toEqual([...oracle.inStorageOrder(oracle.pids('DE', women)), ...oracle.inStorageOrder(oracle.pids('NY', women))]);
    const [entry] = await t.h['audit/list']({ limit: 1 });
    expect(entry).toMatchObject({ records: pids.length, audience: { state: 'DE', states: ['DE', 'NY'] } });
  });

  it('refuses an unknown state in "states" with a readable error naming the key', async () => {
    const e = await failure(t.h['audience/count']({ state: 'CA', states: ['CA', 'ZZ'], filters: [] }));
    expect(e).toMatchObject({ code: 'invalid_request', field: 'states' });
    expect(e.message).toMatch(/Unknown state "ZZ"/);
  });

  it('leaves the HTTP API one state a request: "states" is refused there', async () => {
    const res = await t.api.post('/api/audiences/preview', { state: 'CA', states: ['CA', 'NY'] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/states/);
  });
});

describe('the pieces', () => {
  it('shareSample keeps the size, follows the counts and never exceeds a count', () => {
    expect(shareSample(10, [50, 30, 20])).toEqual([5, 3, 2]);
    expect(shareSample(10, [1, 100, 0])).toEqual([0, 10, 0]);
    expect(shareSample(500, [3, 4])).toEqual([3, 4]);
    expect(shareSample(7, [5, 5, 5]).reduce((a, b) => a + b, 0)).toBe(7);
  });

  it('pageSlices walks a page across parts', () => {
    expect(pageSlices([5, 0, 5], 3, 4)).toEqual([
      { part: 0, skip: 3, limit: 2 },
      { part: 2, skip: 0, limit: 2 },
    ]);
    expect(pageSlices([5, 5], 20, 4)).toEqual([]);
  });
});

describe('workspace/get, workspace/set', () => {
  it('keeps the working audience and the grid columns in app state', async () => {
    expect(await t.h['workspace/get']({})).toEqual({ audience: null });
    const workspace = {
      audience: { state: 'CA', states: ['CA', 'NY'], filters: women, households: 'one' as const },
      columns: ['pid', 'city'],
    };
    expect(await t.h['workspace/set'](workspace)).toEqual({ ok: true });
    expect(await t.h['workspace/get']({})).toEqual(workspace);
  });

  it('refuses a malformed workspace and reads a damaged stored one as empty', async () => {
    expect(await failure(t.h['workspace/set']({ audience: { state: 'CA', filter: [] } }))).toMatchObject({ code: 'invalid_request' });
    t.api.core.appState.prepare("UPDATE settings SET value = '{not json' WHERE key = 'workspace'").run();
    expect(await t.h['workspace/get']({})).toEqual({ audience: null });
  });
});
