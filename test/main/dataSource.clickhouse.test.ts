// The desktop app's Data source wiring, with a stand-in electron module (safeStorage a reversible
// transform that is not the identity) and the real core over IPC, against a real local ClickHouse:
// the ClickHouse password is kept only encrypted in app state, never answered to the window, and
// an unavailable keychain or a value this computer cannot decrypt is a clear error that changes nothing.
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { createCore, type Core } from '../../src/core/createCore';
import { CANNOT_DECRYPT, NO_ENCRYPTION, SafeStorageSecretStore, SECRET_SETTING } from '../../src/main/safeStorageSecretStore';
import { LOADER, READER } from '../clickhouse/support/localServers';
import { describeClickHouse, useLocalClickHouse } from '../clickhouse/support/localClickHouse';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeApp, type FakeApp } from './fakeApp';
import { safeStorage, safeStorageState } from './fakeElectron';

vi.mock('electron', async () => await import('./fakeElectron'));

const DATABASE = 'main_wiring';
const PASSWORD = 'Plain-Text-Password-93e1';

afterEach(() => {
  safeStorageState.available = true;
  safeStorageState.backend = 'gnome_libsecret';
});

describe('SafeStorageSecretStore', () => {
  let core: Core;
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'audience-desk-secrets-'));
    core = createCore({ homeDir: home });
  });
  afterAll(async () => {
    await core.shutdown();
    rmSync(home, { recursive: true, force: true });
  });
  const stored = () => core.appState.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(SECRET_SETTING) as string | undefined;

  it('keeps only the encrypted form in app state, and reads it back', async () => {
    const store = new SafeStorageSecretStore(core.appState, safeStorage, 'linux');
    await store.save({ username: 'reader', password: PASSWORD });
    const value = stored()!;
    expect(value).not.toContain(PASSWORD);
    expect(Buffer.from(JSON.parse(value) as string, 'base64').toString('latin1')).not.toContain(PASSWORD);
    expect(safeStorage.decryptString(Buffer.from(JSON.parse(value) as string, 'base64'))).toBe(
      JSON.stringify({ user: 'reader', password: PASSWORD }),
    );
    expect(await store.load()).toEqual({ username: 'reader', password: PASSWORD });
    await store.clear();
    expect(stored()).toBeUndefined();
    expect(await store.load()).toBeNull();
  });

  it('keeps the fallback nodes typed with the password inside the encrypted record (issue 38)', async () => {
    const store = new SafeStorageSecretStore(core.appState, safeStorage, 'linux');
    const fallbackUrls = ['http://10.0.0.2:8123'];
    await store.save({ username: 'reader', password: PASSWORD, url: 'http://10.0.0.1:8123', fallbackUrls });
    expect(JSON.parse(safeStorage.decryptString(Buffer.from(JSON.parse(stored()!) as string, 'base64')))).toEqual({
      user: 'reader',
      password: PASSWORD,
      url: 'http://10.0.0.1:8123',
      fallbackUrls,
    });
    expect(await store.load()).toStrictEqual({ username: 'reader', password: PASSWORD, url: 'http://10.0.0.1:8123', fallbackUrls });
    await store.save({ username: 'reader', password: PASSWORD, url: 'http://10.0.0.1:8123' });
    expect(await store.load()).toStrictEqual({ username: 'reader', password: PASSWORD, url: 'http://10.0.0.1:8123' });
    await store.clear();
  });

  it('refuses to store without OS encryption (unavailable, or Linux’s basic_text fallback), storing nothing', async () => {
    const store = new SafeStorageSecretStore(core.appState, safeStorage, 'linux');
    safeStorageState.available = false;
    await expect(store.save({ username: 'reader', password: PASSWORD })).rejects.toMatchObject({
      code: 'unavailable',
      message: NO_ENCRYPTION,
    });
    safeStorageState.available = true;
    safeStorageState.backend = 'basic_text';
    await expect(store.save({ username: 'reader', password: PASSWORD })).rejects.toMatchObject({ message: NO_ENCRYPTION });
    expect(stored()).toBeUndefined();
    // basic_text is only Linux's fallback; elsewhere the backend name means nothing.
    await new SafeStorageSecretStore(core.appState, safeStorage, 'darwin').save({ username: 'reader', password: PASSWORD });
    expect(stored()).toBeDefined();
    await new SafeStorageSecretStore(core.appState, safeStorage, 'darwin').clear();
  });

  it('a value this computer cannot decrypt is a clear error asking for the password again', async () => {
    const store = new SafeStorageSecretStore(core.appState, safeStorage, 'linux');
    const set = (value: string) =>
      core.appState.prepare('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)').run(SECRET_SETTING, JSON.stringify(value));
    set(Buffer.from('v10 another keychain').toString('base64'));
    await expect(store.load()).rejects.toMatchObject({ code: 'unavailable', message: CANNOT_DECRYPT });
    set('not base64 at all ✗');
    await expect(store.load()).rejects.toMatchObject({ message: CANNOT_DECRYPT });
    await store.save({ username: 'reader', password: PASSWORD });
    safeStorageState.available = false;
    await expect(store.load()).rejects.toMatchObject({ message: CANNOT_DECRYPT });
    await store.clear();
  });
});

describeClickHouse('the Data source over IPC (desktop app)', () => {
  const clickhouse = useLocalClickHouse(DATABASE);
  let desk: FakeApp;
  const logged: string[] = [];

  beforeAll(async () => {
    for (const level of ['log', 'warn', 'error', 'info'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    await loadIntoClickHouse({ datasetPath: inject('tinyDatasetPath'), target: clickhouse().singleLoad });
    desk = await startFakeApp(inject('datasetPath'));
  });
  afterAll(async () => {
    await desk?.stop();
    vi.restoreAllMocks();
    for (const line of logged) for (const secret of [READER.password, LOADER.password, PASSWORD]) expect(line).not.toContain(secret);
  });

  const call = async (channel: string, input: unknown): Promise<any> => {
    const envelope = await desk.call(channel, input);
    // Nothing the window receives holds a password.
    for (const secret of [READER.password, LOADER.password, PASSWORD]) expect(JSON.stringify(envelope)).not.toContain(secret);
    return envelope;
  };
  const secretRow = () =>
    desk.running.core.appState.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(SECRET_SETTING) as string | undefined;
  const use = (password?: string) =>
    call('datasource/use', {
      kind: 'clickhouse',
      url: clickhouse().servers.single.url,
      database: DATABASE,
      user: READER.username,
      ...(password ? { password } : {}),
    });

  it('says the password lives in the OS keychain; Use keeps it only encrypted and the window learns hasPassword', async () => {
    const before = await call('datasource/get', {});
    expect(before).toMatchObject({ ok: true, value: { current: 'dataset', stored: 'embedded', clickhouse: null, bundledAvailable: true } });
    expect(before.value.secretStore).toMatch(/OS keychain/);

    const used = await use(READER.password);
    expect(used).toMatchObject({ ok: true, value: { current: 'clickhouse', clickhouse: { user: READER.username, hasPassword: true } } });
    const row = secretRow()!;
    expect(row).not.toContain(READER.password);
    expect(Buffer.from(JSON.parse(row) as string, 'base64').toString('latin1')).not.toContain(READER.password);
    // With the address it was typed for: it is sent to no other (src/core/dataSource/passwordBinding.ts).
    expect(JSON.parse(safeStorage.decryptString(Buffer.from(JSON.parse(row) as string, 'base64')))).toEqual({
      user: READER.username,
      password: READER.password,
      url: clickhouse().servers.single.url,
    });
    expect(await call('dataset/info', {})).toMatchObject({ ok: true, value: { records: 40 } });
  });

  it('a stored value that cannot be decrypted is said, and Use without a password then fails clearly', async () => {
    const row = secretRow()!;
    desk.running.core.appState
      .prepare('UPDATE settings SET value = ? WHERE key = ?')
      .run(JSON.stringify(Buffer.from('v10 from another computer').toString('base64')), SECRET_SETTING);
    const info = await call('datasource/get', {});
    expect(info.value).toMatchObject({ passwordError: CANNOT_DECRYPT, clickhouse: { hasPassword: false } });
    expect(await use()).toMatchObject({ ok: false, error: { code: 'unavailable', message: CANNOT_DECRYPT } });
    desk.running.core.appState.prepare('UPDATE settings SET value = ? WHERE key = ?').run(row, SECRET_SETTING);
  });

  it('without OS encryption Use refuses to store the password and changes nothing', async () => {
    await call('datasource/use', { kind: 'bundled' });
    const rowBefore = secretRow();
    safeStorageState.available = false;
    expect(await use(PASSWORD.replace('Plain', 'Other'))).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(await use(READER.password)).toMatchObject({ ok: false, error: { code: 'unavailable', message: NO_ENCRYPTION } });
    expect(secretRow()).toBe(rowBefore);
    expect(await call('datasource/get', {})).toMatchObject({ ok: true, value: { current: 'bundled', stored: 'embedded' } });
    // The bundled dataset is what the next start opens: main forgets the remembered file.
    expect(desk.running.settings.get('dataset.last')).toBeNull();
  });
});
