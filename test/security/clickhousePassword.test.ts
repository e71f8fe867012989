// Issue 39: the stored ClickHouse password went to whatever address settings named; a restored
// backup whose settings named another server made `serve` send `Authorization: Basic
// analyst:<password>` there. Now the password is stored with the address and user it was typed for
// and sent only there. Real components: fake ClickHouse servers on 127.0.0.1 (port 0) that record
// every credential they are sent, the real CLI for restore and serve in child processes, real
// SQLite files, the real FileSecretStore file. Also: a password stored before the binding (no
// address in the record) is sent nowhere, and the Data source screen says why; and the desktop
// app's keychain record, which lives in app state and so comes back with a restore, is bound the same way;
// and fallback nodes (issue 38) are bound like the address: the password reaches one only if typed with it.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { DataSourceSettings } from '../../src/core/dataSource/dataSourceSettings';
import { credentialsFilePath, FileSecretStore } from '../../src/core/dataSource/fileSecretStore';
import { UNBOUND_PASSWORD } from '../../src/core/dataSource/passwordBinding';
import { openSqlite, type Db } from '../../src/core/sqlite';
import { SafeStorageSecretStore, SECRET_SETTING } from '../../src/main/safeStorageSecretStore';
import { safeStorage } from '../main/fakeElectron';
import { cli as runCli } from '../support/cli';

const PASSWORD = 'Stored-Password-7c1f';
const DATABASE = 'audience_desk';

const cli = (...args: string[]) => runCli(args);

/** Test connection of `server` as analyst, the password field left empty: it is asked, and never gets the stored password. */
async function expectTestConnectionWithoutPassword(core: Core, server: FakeClickHouse): Promise<void> {
  const before = server.seen.length;
  await core.dataSources.check({ url: server.url, database: DATABASE, user: 'analyst' });
  expect(server.seen.length).toBeGreaterThan(before);
  for (const s of server.seen) expect(s.everything).not.toContain(PASSWORD);
}

/** A stand-in ClickHouse: answers /ping, refuses every query as a bad password, and records what credentials came with each request. */
class FakeClickHouse {
  readonly seen: Array<{ path: string; authorization: string | null; everything: string }> = [];
  private readonly server: Server = createServer((req, res) => this.answer(req, res));
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /** Every Basic password this server was sent, decoded. */
  passwords(): string[] {
    return this.seen
      .filter((s) => s.authorization?.startsWith('Basic '))
      .map((s) => Buffer.from(s.authorization!.slice(6), 'base64').toString('utf8').split(':').slice(1).join(':'));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private answer(req: IncomingMessage, res: import('node:http').ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // Headers, URL and body as sent, and Basic credentials decoded: the password in any of them is found.
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString('utf8')
        : '';
      const everything = `${req.url} ${JSON.stringify(req.headers)} ${basic} ${Buffer.concat(chunks).toString('utf8')}`;
      this.seen.push({ path: new URL(req.url!, 'http://x').pathname, authorization: req.headers.authorization ?? null, everything });
      if (req.url?.startsWith('/ping')) {
        res.end('Ok.\n');
        return;
      }
      res.writeHead(401, { 'X-ClickHouse-Exception-Code': '516' });
      res.end('Code: 516. DB::Exception: analyst: Authentication failed: password is incorrect. (AUTHENTICATION_FAILED)\n');
    });
  }
}

let dir: string;
let typedFor: FakeClickHouse;
let elsewhere: FakeClickHouse;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-chpassword-'));
  typedFor = await new FakeClickHouse().start();
  elsewhere = await new FakeClickHouse().start();
});
afterAll(async () => {
  await typedFor.close();
  await elsewhere.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A home whose Data source is ClickHouse at `url` as analyst, the password stored as Use stores it (bound to `boundTo`; none: as before the binding). */
async function homeUsing(name: string, url: string, boundTo?: string): Promise<string> {
  const home = join(dir, name);
  const core = createCore({ homeDir: home });
  try {
    new DataSourceSettings(core.appState).useClickHouse({ url, database: DATABASE, user: 'analyst' });
    core.keys.create('my key');
  } finally {
    await core.shutdown();
  }
  await new FileSecretStore(credentialsFilePath(home)).save({
    username: 'analyst',
    password: PASSWORD,
    ...(boundTo ? { url: boundTo } : {}),
  });
  return home;
}

/** `serve` on the home until the server at `fake` has been asked a query (after its /ping), then stopped; its stderr. */
async function serveUntilQueried(home: string, fake: FakeClickHouse): Promise<string> {
  const before = fake.seen.length;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'serve', '--home', home, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const started = Date.now();
  while (!fake.seen.slice(before).some((s) => s.path !== '/ping') && Date.now() - started < 60_000)
    await new Promise((r) => setTimeout(r, 20));
  // Until its notices are written (it prints them before it listens).
  while (!/notice: The ClickHouse data source/.test(stderr) && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGTERM');
  await exited;
  return stderr;
}

describe('the stored ClickHouse password goes only to the address and user it was typed for', () => {
  it('Test connection sends it to its own server (the control), and the record names that server', async () => {
    const home = await homeUsing('control', typedFor.url, typedFor.url);
    expect(JSON.parse(readFileSync(credentialsFilePath(home), 'utf8'))).toEqual({ user: 'analyst', password: PASSWORD, url: typedFor.url });
    const core = createCore({ homeDir: home });
    try {
      const before = typedFor.seen.length;
      const check = await core.dataSources.check({ url: typedFor.url, database: DATABASE, user: 'analyst' });
      expect(check.error).toMatch(/refused the user or password/);
      expect(typedFor.passwords().slice(0)).toContain(PASSWORD);
      expect(typedFor.seen.length).toBeGreaterThan(before);
      expect((await core.dataSources.describe()).clickhouse).toMatchObject({ url: typedFor.url, hasPassword: true });
    } finally {
      await core.shutdown();
    }
  });

  it('after restoring a backup whose settings name another server, serve sends that server no password, and says so', async () => {
    const home = await homeUsing('restored', typedFor.url, typedFor.url);
    const file = join(dir, 'elsewhere.backup');
    expect((await cli('backup', '--home', home, '--out', file)).code).toBe(0);
    // The crafted part: the backup's settings choose ClickHouse at another address, same user.
    const db = openSqlite(file);
    db.prepare("UPDATE settings SET value = ? WHERE key = 'datasource.clickhouse'").run(
      JSON.stringify({ url: elsewhere.url, database: DATABASE, user: 'analyst' }),
    );
    db.close();

    const r = await cli('restore', '--from', file, '--yes', '--home', home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`ClickHouse server: ${elsewhere.url}, user analyst, database ${DATABASE} (the data source)`);

    const stderr = await serveUntilQueried(home, elsewhere);
    const asked = elsewhere.seen.filter((s) => s.path !== '/ping');
    expect(asked.length).toBeGreaterThan(0);
    for (const s of elsewhere.seen) expect(s.everything).not.toContain(PASSWORD);
    expect(elsewhere.passwords().every((p) => p === '')).toBe(true);
    expect(stderr).toContain(`it is not sent to ${elsewhere.url} as analyst`);
    expect(stderr).not.toContain(PASSWORD);

    // The Data source screen says the same, and shows no usable password for that server.
    const core = createCore({ homeDir: home });
    try {
      const info = await core.dataSources.describe();
      expect(info.clickhouse).toMatchObject({ url: elsewhere.url, hasPassword: false });
      expect(info.passwordError).toMatch(/typed for another address or user, so it is not sent to http:\/\/127\.0\.0\.1:\d+ as analyst/);
      // Nor does Test connection of that server, the password field left empty, send it.
      await expectTestConnectionWithoutPassword(core, elsewhere);
    } finally {
      await core.shutdown();
    }
  }, 120_000);

  it('a password stored before the binding (no address in the record) is sent nowhere, and the screen asks for it again', async () => {
    const home = await homeUsing('unbound', typedFor.url);
    expect(JSON.parse(readFileSync(credentialsFilePath(home), 'utf8'))).toEqual({ user: 'analyst', password: PASSWORD });
    const core = createCore({ homeDir: home });
    try {
      const info = await core.dataSources.describe();
      expect(info.passwordError).toBe(UNBOUND_PASSWORD);
      expect(info.clickhouse).toMatchObject({ hasPassword: false });
      const before = typedFor.seen.length;
      await core.dataSources.check({ url: typedFor.url, database: DATABASE, user: 'analyst' });
      const sent = typedFor.seen.slice(before);
      expect(sent.some((s) => s.path !== '/ping')).toBe(true);
      for (const s of sent) expect(s.everything).not.toContain(PASSWORD);
    } finally {
      await core.shutdown();
    }
  });

  it('an explicit password is still sent where it is typed, and a damaged record is an error, not a password', async () => {
    const home = join(dir, 'typed');
    const core = createCore({ homeDir: home, datasetPath: inject('datasetPath') });
    try {
      const before = elsewhere.seen.length;
      await core.dataSources.check({ url: elsewhere.url, database: DATABASE, user: 'analyst', password: 'typed-now' });
      expect(
        elsewhere.seen.slice(before).some((s) => s.authorization === `Basic ${Buffer.from('analyst:typed-now').toString('base64')}`),
      ).toBe(true);
      writeFileSync(credentialsFilePath(home), JSON.stringify({ user: 'analyst', password: PASSWORD, url: 42 }), { mode: 0o600 });
      const info = await core.dataSources.describe();
      expect(info.passwordError).toMatch(/cannot be read; enter the password again/);
      expect(JSON.stringify(info)).not.toContain(PASSWORD);
    } finally {
      await core.shutdown();
    }
  });

  it('fallback nodes (issue 38): the password goes to one only when typed with it, and settings naming another send it nowhere', async () => {
    const home = join(dir, 'fallbacks');
    // The entry node: a loopback port nobody listens on, so requests go on to the fallback node.
    const entry = await new FakeClickHouse().start();
    await entry.close();
    const core = createCore({ homeDir: home });
    try {
      const settings = new DataSourceSettings(core.appState);
      settings.useClickHouse({ url: entry.url, fallbackUrls: [typedFor.url], database: DATABASE, user: 'analyst' });
      await new FileSecretStore(credentialsFilePath(home)).save({
        username: 'analyst',
        password: PASSWORD,
        url: entry.url,
        fallbackUrls: [typedFor.url],
      });
      expect((await core.dataSources.describe()).clickhouse).toMatchObject({ fallbackUrls: [typedFor.url], hasPassword: true });
      const before = typedFor.seen.length;
      const check = await core.dataSources.check({ url: entry.url, fallbackUrls: [typedFor.url], database: DATABASE, user: 'analyst' });
      expect(check.nodes).toEqual([
        { address: entry.url, reachable: false },
        { address: typedFor.url, reachable: true },
      ]);
      expect(check.warnings).toContain(`${entry.url} does not answer: requests go to its fallback node ${typedFor.url} meanwhile.`);
      expect(check.error).toBe(`ClickHouse at ${typedFor.url} refused the user or password.`);
      expect(typedFor.passwords().slice(0)).toContain(PASSWORD);
      expect(typedFor.seen.length).toBeGreaterThan(before);

      // Settings (a restore, a hand edit) now name another fallback node: the password goes to neither.
      settings.useClickHouse({ url: entry.url, fallbackUrls: [elsewhere.url], database: DATABASE, user: 'analyst' });
      const info = await core.dataSources.describe();
      expect(info.clickhouse).toMatchObject({ fallbackUrls: [elsewhere.url], hasPassword: false });
      expect(info.passwordError).toMatch(/typed for another address or user, so it is not sent to/);
      const elsewhereBefore = elsewhere.seen.length;
      await core.dataSources.check({ url: entry.url, fallbackUrls: [elsewhere.url], database: DATABASE, user: 'analyst' });
      expect(elsewhere.seen.slice(elsewhereBefore).some((s) => s.path !== '/ping')).toBe(true);
      for (const s of elsewhere.seen) expect(s.everything).not.toContain(PASSWORD);
      // Nor when the screen names the fallback node it was typed with beside the new one.
      const typedForBefore = typedFor.seen.length;
      await core.dataSources.check({ url: entry.url, fallbackUrls: [typedFor.url, elsewhere.url], database: DATABASE, user: 'analyst' });
      for (const s of typedFor.seen.slice(typedForBefore)) expect(s.everything).not.toContain(PASSWORD);
    } finally {
      await core.shutdown();
    }
  });

  it('desktop app: the keychain record comes back with a restore of settings naming another server, and still goes only where it was typed', async () => {
    const home = join(dir, 'desktop');
    const keychain = (db: Db) => new SafeStorageSecretStore(db, safeStorage, 'linux');
    const core = createCore({ homeDir: home, secretStore: keychain });
    try {
      new DataSourceSettings(core.appState).useClickHouse({ url: typedFor.url, database: DATABASE, user: 'analyst' });
      await new SafeStorageSecretStore(core.appState, safeStorage, 'linux').save({
        username: 'analyst',
        password: PASSWORD,
        url: typedFor.url,
      });
      const row = core.appState.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(SECRET_SETTING) as string;
      expect(row).not.toContain(PASSWORD);
      const file = join(dir, 'desktop.backup');
      core.backup(file);
      const db = openSqlite(file);
      db.prepare("UPDATE settings SET value = ? WHERE key = 'datasource.clickhouse'").run(
        JSON.stringify({ url: elsewhere.url, fallbackUrls: ['http://10.0.0.7:8123'], database: DATABASE, user: 'analyst' }),
      );
      db.close();
      // Through the core, as the app's backup/preview and backup/restore do: the fallback node shown too.
      const staged = core.stageRestore(file);
      try {
        expect(staged.preview.clickhouse).toEqual({
          url: elsewhere.url,
          fallbackUrls: ['http://10.0.0.7:8123'],
          database: DATABASE,
          user: 'analyst',
          chosen: true,
        });
        staged.apply();
      } finally {
        staged.discard();
      }
      expect(core.appState.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(SECRET_SETTING)).toBe(row);
      const info = await core.dataSources.describe();
      expect(info).toMatchObject({ clickhouse: { url: elsewhere.url, hasPassword: false } });
      expect(info.passwordError).toMatch(/not sent to http:\/\/127\.0\.0\.1:\d+ as analyst/);
      await expectTestConnectionWithoutPassword(core, elsewhere);
    } finally {
      await core.shutdown();
    }
  });
});
