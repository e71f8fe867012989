// serve and the desktop app ask one audience of their own before listening
// (src/server/warmRequestPath.ts): through the request path's calls, in a state just large enough
// for the two-core paths, writing nothing, and never failing start-up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { WARM_STATE_FROM, warmRequestPath, warmState } from '../../src/server/warmRequestPath';
import { SqlOracle } from '../support/oracle';

let core: Core | undefined;
let home: string | undefined;
afterEach(async () => {
  await core?.shutdown();
  if (home) rmSync(home, { recursive: true, force: true });
  core = home = undefined;
});

function open(datasetPath?: string): Core {
  home = mkdtempSync(join(tmpdir(), 'audience-desk-warm-'));
  core = createCore({ homeDir: home, datasetPath });
  return core;
}

describe('warmRequestPath', () => {
  it('picks the smallest state large enough for the two-core paths, else the largest', () => {
    const states = [
      { state: 'WY', count: 5_000 },
      { state: 'CA', count: 3_000_000 },
      { state: 'OR', count: WARM_STATE_FROM },
      { state: 'NV', count: WARM_STATE_FROM - 1 },
      { state: 'TX', count: 2_000_000 },
    ];
    expect(warmState(states)).toBe('OR');
    expect(warmState(states.filter((s) => s.count < WARM_STATE_FROM))).toBe('NV');
    expect(warmState([])).toBeUndefined();
  });

  it('searches women in that state (their first page and a page at depth), counts them, and writes nothing', async () => {
    const c = open(inject('datasetPath'));
    const search = vi.spyOn(c.audiences, 'search');
    const preview = vi.spyOn(c.audiences, 'preview');
    const { states } = await c.engine.summary();
    const state = warmState(states)!;
    const people = states.find((s) => s.state === state)!.count;
    await warmRequestPath(c);
    expect(search).toHaveBeenCalledTimes(2);
    expect(search.mock.calls[0]![0]).toMatchObject({ state, limit: 25, skip: 0 });
    expect(search.mock.calls[1]![0]).toMatchObject({ state, limit: 100, skip: Math.floor(people / 4) });
    const [first, deep] = await Promise.all(search.mock.results.map((r) => r.value));
    const oracle = new SqlOracle(inject('datasetPath'));
    try {
      expect(first.total).toBe(oracle.count(state, [['GENDER', ['F']]]));
    } finally {
      oracle.close();
    }
    // A page at depth, not past the audience's end: the walk to it is what the start-up compiles.
    expect(Math.floor(people / 4)).toBeGreaterThan(25);
    expect(deep.records).toHaveLength(Math.min(100, first.total - Math.floor(people / 4)));
    expect(preview).toHaveBeenCalledTimes(1);
    expect(c.auditLog.list(10)).toEqual([]);
    expect(c.keys.list()).toEqual([]);
  });

  it('waits for the helpers of the engine (the scan worker) before it asks', async () => {
    const c = open(inject('datasetPath'));
    const engine = c.engine;
    let up!: () => void;
    const ready = vi.spyOn(engine, 'ready').mockReturnValue(new Promise<void>((resolve) => (up = resolve)));
    const search = vi.spyOn(c.audiences, 'search');
    const warming = warmRequestPath(c);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ready).toHaveBeenCalledTimes(1);
    expect(search).not.toHaveBeenCalled();
    up();
    await warming;
    expect(search).toHaveBeenCalledTimes(2);
  });

  it('does nothing without a dataset, and never throws', async () => {
    const c = open();
    const search = vi.spyOn(c.audiences, 'search');
    await expect(warmRequestPath(c)).resolves.toBeUndefined();
    expect(search).not.toHaveBeenCalled();
  });

  it('swallows an engine that fails: the first real request reports it', async () => {
    const c = open(inject('datasetPath'));
    vi.spyOn(c.audiences, 'search').mockRejectedValue(new Error('the file went away'));
    await expect(warmRequestPath(c)).resolves.toBeUndefined();
  });
});
