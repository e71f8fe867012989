// Keys: created, listed, revoked; stored only as hashes in app state apart from the dataset; last
// use recorded (after the answer, never in its way); a key revoked from another process fails on the very next request.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApi, type ApiHarness } from '../support/apiHarness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
});
afterAll(async () => api.close());

const cli = (...args: string[]) => execFileSync('tsx', ['src/cli/index.ts', ...args], { encoding: 'utf8' });

describe('API keys', () => {
  it('lists keys with name, prefix, creation and last use, never the secret', async () => {
    const { info, key } = api.core.keys.create('Analyst laptop');
    expect(key).toMatch(/^adk_[A-Za-z0-9_-]{43}$/);
    expect(api.core.keys.list().find((k) => k.id === info.id)).toMatchObject({
      name: 'Analyst laptop',
      prefix: key.slice(0, 8),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect((await api.post('/api/audiences/preview', { state: 'CA', limit: 0 }, { 'x-api-key': key })).status).toBe(200);
    expect(api.core.keys.list().find((k) => k.id === info.id)!.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(api.core.keys.list())).not.toContain(key);
  });

  it('writes a last use after the answer that made it, and at the latest when keys are listed', async () => {
    const { info, key } = api.core.keys.create('Deferred use');
    const stored = () => api.core.appState.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').pluck().get(info.id);
    expect(api.core.keys.verify(key)).toMatchObject({ id: info.id });
    // Not written while the request is being answered...
    expect(stored()).toBeNull();
    // ...but on the next turn of the event loop.
    await new Promise((done) => setImmediate(done));
    expect(stored()).not.toBeNull();
    const other = api.core.keys.create('Listed use');
    api.core.keys.verify(other.key);
    expect(api.core.keys.list().find((k) => k.id === other.info.id)!.lastUsedAt).not.toBeNull();
  });

  it('stores only hashes: the secret appears in no app-state file', () => {
    const { key } = api.core.keys.create('hash check');
    api.core.appState.pragma('wal_checkpoint(TRUNCATE)');
    for (const file of readdirSync(api.homeDir)) expect(readFileSync(join(api.homeDir, file)).includes(Buffer.from(key))).toBe(false);
    expect(readdirSync(api.homeDir).some((f) => f.startsWith('app-state'))).toBe(true);
  });

  it('a key revoked by the CLI in another process fails on the very next request, without a restart', async () => {
    const { info, key } = api.core.keys.create('to revoke');
    expect((await api.post('/api/audiences/preview', { state: 'CA', limit: 0 }, { 'x-api-key': key })).status).toBe(200);
    expect(cli('keys', 'revoke', info.id, '--home', api.homeDir)).toContain(info.id);
    expect((await api.post('/api/audiences/preview', { state: 'CA', limit: 0 }, { 'x-api-key': key })).status).toBe(401);
    expect(api.core.keys.list().find((k) => k.id === info.id)!.revokedAt).not.toBeNull();
  });

  it('refuses bad names and unknown ids with clear errors', () => {
    expect(() => api.core.keys.create('')).toThrow(/key name/);
    expect(() => api.core.keys.create('x'.repeat(65))).toThrow(/key name/);
    expect(() => api.core.keys.revoke('nope')).toThrow(/No key/);
  });
});
