// The app-state operations through the handler table: saved audiences (CRUD, unique names, filters
// validated and stored as JSON), API keys (create, list, revoke, and the server honouring a revoke),
// the API's status and the audit log.
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { APP_STATE_FILE } from '../../src/core/appState/homeLayout';
import { createCore } from '../../src/core/createCore';
import { failure, startHandlers, type HandlerHarness } from './harness';

let t: HandlerHarness;
beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'));
});
afterAll(() => t.close());

describe('audiences/*', () => {
  it('saves, lists, renames and deletes', async () => {
    const saved = await t.h['audiences/save']({
      name: '  Young women CA ',
      state: 'ca',
      filters: [
        ['gender', ['F']],
        ['AGE', ['18-34', 65]],
      ],
    });
    expect(saved).toMatchObject({
      name: 'Young women CA',
      state: 'CA',
      filters: [
        ['GENDER', ['F']],
        ['AGE', ['18-34', 65]],
      ],
    });
    expect(saved.createdAt).toBe(saved.updatedAt);
    expect((await t.h['audiences/list']({})).map((a) => a.name)).toContain('Young women CA');

    const renamed = await t.h['audiences/rename']({ id: saved.id, name: 'Women 18-34 CA' });
    expect(renamed).toMatchObject({ id: saved.id, name: 'Women 18-34 CA', filters: saved.filters });
    expect(await t.h['audiences/delete']({ id: saved.id })).toEqual({ ok: true });
    expect((await t.h['audiences/list']({})).find((a) => a.id === saved.id)).toBeUndefined();
  });

  it('keeps saved filters runnable: the stored audience counts like the original', async () => {
    const saved = await t.h['audiences/save']({ name: 'Runnable', state: 'TX', filters: [['GENDER', ['M']]] });
    const [again] = (await t.h['audiences/list']({})).filter((a) => a.id === saved.id);
    const a = await t.h['audience/count']({ state: again!.state, filters: again!.filters });
    const b = await t.h['audience/count']({ state: 'TX', filters: [['GENDER', ['M']]] });
    expect(a.total).toBe(b.total);
  });

  it('refuses a duplicate name (in any case) with a readable error, on save and on rename', async () => {
    const one = await t.h['audiences/save']({ name: 'Seniors', state: 'FL', filters: [['AGE', ['65+']]] });
    let e = await failure(t.h['audiences/save']({ name: 'SENIORS', state: 'CA', filters: [] }));
    expect(e).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(e.message).toMatch(/already exists/);
    const two = await t.h['audiences/save']({ name: 'Juniors', state: 'FL', filters: [] });
    e = await failure(t.h['audiences/rename']({ id: two.id, name: 'seniors' }));
    expect(e.message).toMatch(/already exists/);
    // Renaming to its own name (or a case change of it) is fine.
    expect((await t.h['audiences/rename']({ id: one.id, name: 'SENIORS' })).name).toBe('SENIORS');
  });

  it('replaces an audience of the same name when asked: same id, new filters and list controls, and exclusions of it follow', async () => {
    const first = await t.h['audiences/save']({ name: 'Mail list', state: 'CA', filters: [['GENDER', ['F']]], households: 'one' });
    // Counted once as an exclusion, so a stale cache would answer with the old filters.
    const before = await t.h['audience/count']({ state: 'CA', filters: [], exclude: [`saved:${first.id}`] });
    const women = await t.h['audience/count']({ state: 'CA', filters: [['GENDER', ['F']]], households: 'one' });
    const all = await t.h['audience/count']({ state: 'CA', filters: [] });
    expect(before.total).toBe(all.total - women.total);

    const controls = { contact: { phone: 'callable' as const }, exclude: ['exports-since:2026-11-01'], sample: { every: 2 } };
    const replaced = await t.h['audiences/save']({
      name: 'MAIL LIST',
      state: 'CA',
      filters: [['GENDER', ['M']]],
      ...controls,
      replace: true,
    });
    expect(replaced).toMatchObject({ id: first.id, name: 'MAIL LIST', filters: [['GENDER', ['M']]], controls, createdAt: first.createdAt });
    expect(replaced.updatedAt >= first.updatedAt).toBe(true);
    const list = await t.h['audiences/list']({});
    expect(list.filter((a) => a.name.toLowerCase() === 'mail list')).toEqual([replaced]);

    const men = await t.h['audience/count']({ state: 'CA', filters: [['GENDER', ['M']]], ...controls });
    const after = await t.h['audience/count']({ state: 'CA', filters: [], exclude: [`saved:${first.id}`] });
    expect(after.total).toBe(all.total - men.total);
    // Without `replace` the name is still refused.
    expect(await failure(t.h['audiences/save']({ name: 'Mail list', state: 'CA', filters: [] }))).toMatchObject({ field: 'name' });
  });

  it('validates names and filters before saving anything', async () => {
    const before = (await t.h['audiences/list']({})).length;
    expect(await failure(t.h['audiences/save']({ name: '   ', state: 'CA', filters: [] }))).toMatchObject({
      code: 'invalid_request',
      field: 'name',
    });
    expect(await failure(t.h['audiences/save']({ name: 'x'.repeat(101), state: 'CA', filters: [] }))).toMatchObject({ field: 'name' });
    expect(await failure(t.h['audiences/save']({ name: 'bad', state: 'QQ', filters: [] }))).toMatchObject({ field: 'state' });
    expect(await failure(t.h['audiences/save']({ name: 'bad', state: 'CA', filters: [['NOPE', ['1']]] }))).toMatchObject({
      code: 'invalid_request',
    });
    expect(await failure(t.h['audiences/save']({ name: 'bad', state: 'CA', filters: [['AGE', ['x']]] }))).toMatchObject({ field: 'AGE' });
    expect((await t.h['audiences/list']({})).length).toBe(before);
  });

  it('answers not_found for ids that do not exist', async () => {
    expect(await failure(t.h['audiences/rename']({ id: 999999, name: 'x' }))).toMatchObject({ code: 'not_found' });
    expect(await failure(t.h['audiences/delete']({ id: 999999 }))).toMatchObject({ code: 'not_found' });
  });

  it('persists across a restart of the core (app state on disk)', async () => {
    await t.h['audiences/save']({ name: 'Durable', state: 'OH', filters: [] });
    const other = createCore({ homeDir: t.api.homeDir });
    try {
      expect(other.savedAudiences.list().map((a) => a.name)).toContain('Durable');
    } finally {
      await other.shutdown();
    }
  });
});

describe('app-state files', () => {
  it('are readable by their owner only, whatever the umask, and an older world-readable file is repaired', async () => {
    const mode = (p: string) => statSync(p).mode & 0o777;
    const previous = process.umask(0o022);
    const home = mkdtempSync(join(tmpdir(), 'audience-desk-perm-'));
    try {
      const core = createCore({ homeDir: join(home, 'fresh') });
      core.keys.create('makes the WAL');
      const file = join(home, 'fresh', APP_STATE_FILE);
      expect([mode(join(home, 'fresh')), mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual([0o700, 0o600, 0o600, 0o600]);
      await core.shutdown();

      const old = join(home, 'old', APP_STATE_FILE);
      await createCore({ homeDir: join(home, 'old') }).shutdown();
      chmodSync(old, 0o644);
      await createCore({ homeDir: join(home, 'old') }).shutdown();
      expect(mode(old)).toBe(0o600);
    } finally {
      process.umask(previous);
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('keys/*', () => {
  it('creates a key shown once, lists it without the secret, revokes it; the API honours the revoke', async () => {
    const { info, key } = await t.h['keys/create']({ name: 'analyst laptop' });
    expect(key).toMatch(/^adk_/);
    const listed = (await t.h['keys/list']({})).find((k) => k.id === info.id)!;
    expect(listed).toMatchObject({ name: 'analyst laptop', prefix: key.slice(0, 8), revokedAt: null });
    expect(JSON.stringify(await t.h['keys/list']({}))).not.toContain(key);

    const call = () =>
      fetch(t.api.url + '/api/audiences/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: '{"state":"CA"}',
      });
    expect((await call()).status).toBe(200);
    expect(await t.h['keys/revoke']({ id: info.id })).toEqual({ ok: true });
    expect((await call()).status).toBe(401);
    expect((await t.h['keys/list']({})).find((k) => k.id === info.id)!.revokedAt).not.toBeNull();
  });

  it('refuses bad names and unknown ids', async () => {
    expect(await failure(t.h['keys/create']({ name: '' }))).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(await failure(t.h['keys/revoke']({ id: 'nope' }))).toMatchObject({ code: 'not_found' });
  });
});

describe('api/status and audit/list', () => {
  it('reports the server and its recent requests (no bodies, no keys)', async () => {
    await t.api.post('/api/audiences/preview', { state: 'CA' });
    const status = await t.h['api/status']({});
    expect(status).toMatchObject({ url: t.api.url, running: true });
    expect(status.recent[0]).toMatchObject({ operation: 'POST /api/audiences/preview', status: 200, keyName: 'test harness' });
    expect(JSON.stringify(status)).not.toContain(t.api.key);
  });

  it('numbers requests in order, newest first, so the panel can key its rows by seq', async () => {
    const before = (await t.h['api/status']({})).recent[0]?.seq ?? 0;
    await t.api.post('/api/audiences/preview', { state: 'TX' });
    await t.api.post('/api/audiences/preview', { state: 'NY' });
    const seqs = (await t.h['api/status']({})).recent.slice(0, 2).map((r) => r.seq);
    expect(seqs).toEqual([before + 2, before + 1]);
  });

  it('lists audit entries newest first, honouring the limit', async () => {
    const log = t.api.core.auditLog;
    for (const outcome of ['done', 'failed', 'cancelled'] as const)
      log.record({ actor: 'UI', action: 'export', audience: { state: 'CA', filters: [] }, records: 1, file: `/tmp/${outcome}`, outcome });
    const entries = await t.h['audit/list']({ limit: 2 });
    expect(entries.map((e) => e.outcome)).toEqual(['cancelled', 'failed']);
    expect(entries[0]!.id).toBeGreaterThan(entries[1]!.id);
    expect(await failure(t.h['audit/list']({ limit: 0 }))).toMatchObject({ code: 'invalid_request', field: 'limit' });
  });
});
