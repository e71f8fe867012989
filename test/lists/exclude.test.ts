// `exclude` with a suppression list and with an earlier export, through the engine: in every state,
// the people left are exactly the plain-SQL oracle's people of the state minus the people the list
// (or the export) names. The sources are wired here as Core wires them (lists.matcher and
// exportHistory.matcher), so the test proves the matchers and the engine's exclusion together.
import { openDatasetSql } from '../support/datasetSql';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Audience } from '../../src/core/audience/contract/engine';
import { resolveAudience, type ExclusionSources } from '../../src/core/audience/resolveControls';
import { createCore, type Core } from '../../src/core/createCore';
import { normalizeAudience } from '../../src/shared/audienceRequest';
import type { Filter } from '../../src/shared/contract';
import { SqlOracle } from '../support/oracle';
import { readPeople, writeMessyList, type MessyList } from './listData';

let dir: string;
let core: Core;
let oracle: SqlOracle;
let sources: ExclusionSources;
let states: string[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-exclude-'));
  core = createCore({ homeDir: join(dir, 'home'), datasetPath: inject('datasetPath') });
  oracle = new SqlOracle(inject('datasetPath'));
  sources = {
    savedAudience: (id) => core.savedAudiences.get(id),
    list: (id) => core.lists.matcher(id),
    export: (id) => core.exportHistory.matcher(id),
    zipCentre: (zip) => core.engine.zipCentre(zip),
  };
  states = (await core.engine.summary()).states.map((s) => s.state);
});
afterAll(async () => {
  oracle.close();
  await core.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function pidsOf(audience: Audience): Promise<string[]> {
  const out: string[] = [];
  const stream = await core.engine.records(audience);
  for await (const batch of stream.batches(5000)) for (const text of batch) out.push(text.slice(2, 34));
  expect(out.length).toBe(stream.total);
  return out;
}

function excluding(state: string, filters: Filter[], exclude: string): Promise<Audience> {
  return resolveAudience(normalizeAudience({ state, filters, exclude: [exclude] }), sources);
}

/** The list's people by plain SQL, with the values as the dataset holds them. */
function listPeople(l: MessyList): Set<string> {
  const db = openDatasetSql(inject('datasetPath'));
  try {
    const json = (v: unknown) => JSON.stringify(v);
    const phones = json(l.phones);
    return new Set(
      db
        .prepare(
          `SELECT PID FROM people WHERE PID IN (SELECT value FROM json_each(?))
             OR PHONE IN (SELECT value FROM json_each(?)) OR PHONE2 IN (SELECT value FROM json_each(?)) OR PHONE3 IN (SELECT value FROM json_each(?))
             OR ADDRESS || '|' || ZIP IN (SELECT value FROM json_each(?))`,
        )
        .pluck()
        .all(json(l.pids), phones, phones, phones, json(l.addresses.map(([a, z]) => `${a}|${z}`))) as string[],
    );
  } finally {
    db.close();
  }
}

describe('exclude', () => {
  it('"list:<id>" removes exactly the people the suppression list names, in every state', async () => {
    const list = writeMessyList(join(dir, 'list.csv'), readPeople(inject('datasetPath')));
    const info = await core.lists.import(join(dir, 'list.csv'), 'suppress');
    const named = listPeople(list);
    // Every state's people in the file's order (an export's, which pidsOf reads), by one plain query (the oracle's per-state query, 51 times, is slow).
    const byState = new Map<string, string[]>(states.map((st) => [st, []]));
    const db = openDatasetSql(inject('datasetPath'));
    for (const [state, pid] of db.prepare('SELECT STATE, PID FROM people ORDER BY _pos').raw().all() as Array<[string, string]>)
      byState.get(state)!.push(pid);
    db.close();
    let removed = 0;
    for (const state of states) {
      const everyone = byState.get(state)!;
      const want = everyone.filter((pid) => !named.has(pid));
      removed += everyone.length - want.length;
      expect(await pidsOf(await excluding(state, [], `list:${info.id}`))).toEqual(want);
    }
    expect(removed).toBe(named.size);
    expect(named.size).toBe(info.matched);
  });

  it('"export:<id>" removes exactly the people the export wrote', async () => {
    const filters: Filter[] = [['GENDER', ['F']]];
    const definition = { state: 'CA', filters };
    const job = await core.audiences.startExport(normalizeAudience(definition), {
      definition,
      format: 'jsonl',
      path: join(dir, 'ca-women.jsonl'),
      actor: 'test',
    });
    expect((await core.exportJobs.settled(job.id)).status).toBe('done');
    const [entry] = core.auditLog.list(1);
    expect(entry!.excludable).toBe(true);
    const sent = new Set(oracle.pids('CA', filters));
    // Everyone in CA but the women sent; the men of CA, all of them; another state untouched.
    const stored = (pids: string[]) => oracle.inStorageOrder(pids);
    expect(await pidsOf(await excluding('CA', [], `export:${entry!.id}`))).toEqual(stored(oracle.pids('CA').filter((p) => !sent.has(p))));
    expect(await pidsOf(await excluding('CA', [['GENDER', ['M']]], `export:${entry!.id}`))).toEqual(
      stored(oracle.pids('CA', [['GENDER', ['M']]])),
    );
    expect(await pidsOf(await excluding('CA', filters, `export:${entry!.id}`))).toEqual([]);
    expect(await pidsOf(await excluding('WY', [], `export:${entry!.id}`))).toEqual(stored(oracle.pids('WY')));
  });

  it('an unknown list or export, or a failed export: 400 naming exclude', async () => {
    const failed = await core.audiences.startExport(normalizeAudience({ state: 'WY' }), {
      definition: { state: 'WY', filters: [] },
      format: 'csv',
      path: join(dir, 'missing', 'wy.csv'),
      actor: 'test',
    });
    expect((await core.exportJobs.settled(failed.id)).status).toBe('failed');
    const [entry] = core.auditLog.list(1);
    for (const ref of ['list:nope', 'export:999999', `export:${entry!.id}`])
      await expect(excluding('CA', [], ref)).rejects.toMatchObject({ code: 'invalid_request', field: 'exclude' });
  });
});
