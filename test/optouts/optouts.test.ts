// Consumer opt-outs against a running API server: a file naming people by PID, by phone and by name
// with address (written the messy way) is imported by the real CLI into the server's home while it
// runs, and from the next request on those people are in no count, page, search, export, breakdown,
// cross-tab or match; they stay out after a switch to another dataset file, a restart and a restore of
// a backup taken while they were in force; removing the import brings them back at once. The people
// expected out come from the plain-SQL oracle's records, not from the code under test.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { ApiServer } from '../../src/server/apiServer';
import { normalizeAudience } from '../../src/shared/audienceRequest';
import { withOptOuts } from '../../src/core/audience/resolveControls';
import { cli } from '../support/cli';
import { readPeople, type Person } from '../match/matchData';
import { writeOptOutFile } from './optOutData';

let dir: string;
let home: string;
let core: Core;
let server: ApiServer;
let url: string;
let key: string;
let people: Person[];
let state: string;
let optedOut: Set<string>;
let importId: string;

async function start(datasetPath: string): Promise<void> {
  core = createCore({ homeDir: home, datasetPath });
  key ??= core.keys.create('opt-out test').key;
  server = new ApiServer(core, { keepAliveTimeoutMs: 120_000 });
  url = await server.listen(0);
}
async function stop(): Promise<void> {
  await server.close();
  await core.shutdown();
}

async function post(op: 'preview' | 'search', body: Record<string, unknown>): Promise<any> {
  const r = await fetch(`${url}/api/audiences/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(200);
  return r.json();
}

/** Every PID of the state through the API's preview pages. */
async function apiPids(): Promise<string[]> {
  const pids: string[] = [];
  const { total } = await post('preview', { state, limit: 0 });
  for (let skip = 0; skip < total; skip += 1000)
    pids.push(...((await post('preview', { state, limit: 1000, skip })).results as Array<{ pid: string }>).map((r) => r.pid));
  expect(pids).toHaveLength(total);
  return pids;
}

const inState = (): string[] =>
  people
    .filter((p) => p.STATE === state)
    .map((p) => p.PID)
    .sort();
const leftIn = (): string[] => inState().filter((pid) => !optedOut.has(pid));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-optouts-'));
  home = join(dir, 'home');
  people = readPeople(inject('datasetPath'));
  const byState = new Map<string, number>();
  for (const p of people) byState.set(p.STATE, (byState.get(p.STATE) ?? 0) + 1);
  state = [...byState].sort((a, b) => b[1] - a[1])[0]![0];
  await start(inject('datasetPath'));

  optedOut = writeOptOutFile(join(dir, 'optouts.csv'), people, state);
});
afterAll(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('consumer opt-outs', () => {
  it('leave every count, page, search, export, breakdown, cross-tab and match of a running server at the next request', async () => {
    expect(await apiPids()).toEqual(inState());
    const imported = await cli(['optouts', 'import', join(dir, 'optouts.csv'), '--home', home, '--db', inject('datasetPath')]);
    expect(imported.code, imported.stderr).toBe(0);
    const summary = JSON.parse(imported.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    importId = summary.id as string;
    expect(summary).toMatchObject({ rejected: 1, matched: optedOut.size });
    expect(imported.stderr).toMatch(/line \d+ rejected: an address without the first and last name/);
    const outHere = inState().filter((pid) => optedOut.has(pid)).length;
    expect(outHere).toBeGreaterThan(20);

    // The server that was running all along.
    expect(await apiPids()).toEqual(leftIn());
    const search = await post('search', { state, limit: 1000 });
    expect(search.total).toBe(leftIn().length);
    const searched = (search.results ?? search.records) as unknown[];
    expect(searched.length).toBeGreaterThan(0);
    expect(JSON.stringify(searched)).not.toMatch(new RegExp([...optedOut].slice(0, 50).join('|')));

    const query = normalizeAudience({ state, filters: [] });
    const out = join(dir, 'export.csv');
    await core.audiences.exportToFile(query, { format: 'csv', outPath: out });
    const exported = readFileSync(out, 'utf8')
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.slice(0, 32));
    expect(exported.sort()).toEqual(leftIn());
    expect((await core.audiences.count(query)).steps.filtered).toBe(leftIn().length);
    expect((await core.audiences.breakdown(query, 'GENDER')).total).toBe(leftIn().length);
    // An audience a feature builds itself (a profile's base) gets them with withOptOuts.
    const base = withOptOuts({ state, filters: [] }, { optOuts: () => core.optOuts.matcher() });
    expect(await core.engine.count(base)).toBe(leftIn().length);
    expect(await core.engine.count({ state, filters: [] })).toBe(inState().length);
    const crossTab = await core.audiences.crossTab(query, 'GENDER', 'GENERATION_GRPCD');
    expect(crossTab.total).toBe(leftIn().length);

    // Match never finds an opted-out person, even by PID.
    const gone = people.find((p) => optedOut.has(p.PID))!;
    const kept = people.find((p) => !optedOut.has(p.PID))!;
    writeFileSync(
      join(dir, 'customers.csv'),
      `PID,First,Last\n${gone.PID},${gone.FNAME},${gone.LNAME}\n${kept.PID},${kept.FNAME},${kept.LNAME}\n`,
    );
    const matched = await core.match.match({ file: join(dir, 'customers.csv'), out: join(dir, 'matched.csv'), fields: ['PID'] });
    expect(matched).toMatchObject({ rows: 2, matched: 1 });
    expect(readFileSync(join(dir, 'matched.csv'), 'utf8').split('\n')[1]).toBe(`${gone.PID},${gone.FNAME},${gone.LNAME},,`);
  });

  it('stay out in another dataset file, after a restart, and after a restore; removing them brings them back at once', async () => {
    const copy = join(dir, 'other-dataset.sqlite');
    copyFileSync(inject('datasetPath'), copy);
    core.openDataset(copy);
    expect((await post('preview', { state, limit: 0 })).total).toBe(leftIn().length);

    await stop();
    await start(copy);
    expect(await apiPids()).toEqual(leftIn());
    const listed = await cli(['optouts', 'list', '--home', home]);
    expect(listed.stdout).toMatch(new RegExp(`^${importId}\\t.*\\tin force$`, 'm'));

    const backup = join(dir, 'backup.sqlite');
    core.backup(backup);
    const removed = await cli(['optouts', 'remove', importId, '--home', home]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await apiPids()).toEqual(inState());
    expect((await cli(['optouts', 'list', '--home', home])).stdout).toMatch(/\tremoved \S+$/m);

    core.stageRestore(backup).apply();
    expect(await apiPids()).toEqual(leftIn());
  });
});
