// The Data source setting in the core, against the real local ClickHouse servers: Test connection
// step by step (unreachable, refused password, no database, no loaded table, a user that can write,
// the read-only user with the loaded records and load time), Use switches a running core and answers
// the embedded engine's counts, the choice survives a restart, and an unreachable server at start is
// a notice and the bundled dataset, the stored choice kept. The password is in no answer and no log.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject, it, vi } from 'vitest';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { createCore, type Core } from '../../src/core/createCore';
import {
  DATA_SOURCE_CLICKHOUSE_SETTING as CLICKHOUSE_SETTING,
  DATA_SOURCE_KIND_SETTING as KIND_SETTING,
} from '../../src/core/appState/settingsTable';
import { createHandlers, type HandlerTable } from '../../src/core/handlers';
import { LOADER, READER } from './support/localServers';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';

const DATABASE = 'datasource_tests';
const WRONG = 'wrong-password-5d1e';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

describeClickHouse('the Data source setting (core)', () => {
  const clickhouse = useLocalClickHouse(DATABASE);
  const datasetPath = resolve(inject('datasetPath'));
  const homes: string[] = [];
  const cores: Core[] = [];
  const logged: string[] = [];
  let url: string;

  function start(home?: string): { core: Core; h: HandlerTable; home: string } {
    const dir = home ?? mkdtempSync(join(tmpdir(), 'audience-desk-datasource-'));
    if (!home) homes.push(dir);
    // The shared test dataset plays the bundled one: what the app opens when nothing else is chosen.
    const core = createCore({ homeDir: dir, bundledDatasetPath: datasetPath });
    cores.push(core);
    const h = createHandlers(core, {
      resolveExportPath: async () => null,
      pickImportFiles: async () => ({ files: [], inbox: null }),
      apiStatus: () => ({ url: null, running: false, recent: [] }),
    });
    return { core, h, home: dir };
  }

  beforeAll(async () => {
    url = clickhouse().servers.single.url;
    for (const level of ['log', 'warn', 'error', 'info'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    await loadIntoClickHouse({ datasetPath, target: clickhouse().singleLoad });
  });
  afterEach(() => {
    // No password anywhere in what was printed.
    for (const line of logged) for (const secret of [READER.password, LOADER.password, WRONG]) expect(line).not.toContain(secret);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    for (const core of cores) await core.shutdown();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  it('Test connection says which step failed, in words that never hold the password', async () => {
    const { h } = start();
    const check = (input: Record<string, unknown>) => h['datasource/check']({ url, database: DATABASE, ...input });

    const unreachable = await h['datasource/check']({
      url: `http://127.0.0.1:${await closedPort()}`,
      database: DATABASE,
      user: 'reader',
      password: WRONG,
    });
    expect(unreachable).toMatchObject({ reachable: false, signedIn: false });
    expect(unreachable.error).toMatch(/^Nothing answers at http:\/\/127\.0\.0\.1:\d+/);

    const refused = await check({ user: READER.username, password: WRONG });
    expect(refused).toMatchObject({ reachable: true, signedIn: false, databaseFound: false });
    expect(refused.error).toMatch(/refused the user or password/);
    expect(JSON.stringify(refused)).not.toContain(WRONG);

    const noDatabase = await h['datasource/check']({ url, database: 'no_such_db', user: READER.username, password: READER.password });
    expect(noDatabase).toMatchObject({ signedIn: true, databaseFound: false, tableFound: false });
    expect(noDatabase.error).toMatch(/has no database no_such_db/);

    const noTable = await h['datasource/check']({ url, database: 'system', user: READER.username, password: READER.password });
    expect(noTable).toMatchObject({ databaseFound: true, tableFound: false });
    expect(noTable.error).toMatch(/holds no loaded dataset/);

    const writer = await check({ user: LOADER.username, password: LOADER.password });
    expect(writer).toMatchObject({ error: null, readOnly: false, tableFound: true, records: inject('testRows') });
    expect(writer.warnings.join(' ')).toMatch(/can write.*read-only user/);

    const reader = await check({ user: READER.username, password: READER.password });
    expect(reader).toMatchObject({
      error: null,
      reachable: true,
      signedIn: true,
      readOnly: true,
      warnings: [],
      records: inject('testRows'),
    });
    expect(reader.version).toMatch(/^18\./);
    expect(Date.now() - Date.parse(reader.loadedAt!)).toBeLessThan(10 * 60_000);
    expect(reader.source).toBe(datasetPath.split('/').pop());

    // An address carrying credentials is refused as bad input, without repeating them.
    const withCredentials = url.replace('http://', `http://${READER.username}:${READER.password}@`);
    await expect(h['datasource/check']({ url: withCredentials, database: DATABASE, user: 'x' })).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'url',
      message: expect.not.stringContaining(READER.password),
    });
    await expect(h['datasource/check']({ url: 'ftp://127.0.0.1', database: DATABASE, user: 'x' })).rejects.toMatchObject({ field: 'url' });
  });

  it('Use switches the running core to ClickHouse and back; the answers are the embedded engine’s', async () => {
    const { core, h } = start();
    await core.dataSources.openAtStart(() => core.openDataset(datasetPath));
    const audience = { state: 'CA', filters: [['GENDER', ['F']]] as [string, string[]][] };
    const embedded = await h['audience/count'](audience);
    expect((await h['datasource/get']({})).current).toBe('bundled');

    // A refused switch changes nothing.
    await expect(
      h['datasource/use']({ kind: 'clickhouse', url, database: DATABASE, user: READER.username, password: WRONG }),
    ).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/refused the user or password/) });
    expect(await h['datasource/get']({})).toMatchObject({ current: 'bundled', stored: 'embedded', clickhouse: null });

    const info = await h['datasource/use']({
      kind: 'clickhouse',
      url,
      database: DATABASE,
      user: READER.username,
      password: READER.password,
    });
    expect(info).toMatchObject({
      current: 'clickhouse',
      stored: 'clickhouse',
      clickhouse: { url, database: DATABASE, user: READER.username, hasPassword: true },
      dataset: { records: inject('testRows') },
    });
    expect(JSON.stringify(info)).not.toContain(READER.password);
    expect((await h['dataset/info']({})).path).toBe(`clickhouse ${url}/${DATABASE}`);
    const answered = await h['audience/count'](audience);
    expect(answered.total).toBe(embedded.total);
    expect(answered.steps).toEqual(embedded.steps);
    // The dataset file is no longer the active one of the history.
    expect((await h['datasets/list']({})).datasets.some((d) => d.active)).toBe(false);

    // With the password field left empty, the stored one is used, for this address and user only.
    expect((await h['datasource/check']({ url, database: DATABASE, user: READER.username })).error).toBeNull();
    const otherUser = await h['datasource/check']({ url, database: DATABASE, user: LOADER.username });
    expect(otherUser.signedIn).toBe(false);

    const back = await h['datasource/use']({ kind: 'bundled' });
    expect(back).toMatchObject({ current: 'bundled', stored: 'embedded', clickhouse: { hasPassword: true } });
    expect((await h['dataset/info']({})).path).toBe(datasetPath);
    expect((await h['audience/count'](audience)).total).toBe(embedded.total);
  });

  it('fallback nodes: Test connection names the node that answered; Use keeps them with the password; a restart opens through them', async () => {
    const first = start();
    await first.core.dataSources.openAtStart(() => first.core.openDataset(datasetPath));
    // The entry node is a port nobody listens on; the real server is its fallback node.
    const entry = `http://127.0.0.1:${await closedPort()}`;
    const source = { url: entry, fallbackUrls: [url], database: DATABASE, user: READER.username };

    const check = await first.h['datasource/check']({ ...source, password: READER.password });
    expect(check).toMatchObject({
      error: null,
      address: entry,
      reachable: true,
      signedIn: true,
      tableFound: true,
      records: inject('testRows'),
      answeredBy: url,
      nodes: [
        { address: entry, reachable: false },
        { address: url, reachable: true },
      ],
    });
    expect(check.warnings).toEqual([`${entry} does not answer: requests go to its fallback node ${url} meanwhile.`]);
    // Both nodes silent: said with every address, and nothing answers.
    const silent = `http://127.0.0.1:${await closedPort()}`;
    const none = await first.h['datasource/check']({ ...source, fallbackUrls: [silent], password: READER.password });
    expect(none).toMatchObject({ reachable: false, answeredBy: null, nodes: [{ reachable: false }, { reachable: false }] });
    expect(none.error).toBe(
      `Nothing answers at ${entry} (nor at its fallback nodes ${silent}): check the address and port, and that the server runs.`,
    );
    await expect(
      first.h['datasource/use']({ kind: 'clickhouse', ...source, fallbackUrls: [silent], password: READER.password }),
    ).rejects.toMatchObject({
      code: 'unavailable',
      message: none.error,
    });
    expect(await first.h['datasource/get']({})).toMatchObject({ current: 'bundled', stored: 'embedded', clickhouse: null });

    const info = await first.h['datasource/use']({ kind: 'clickhouse', ...source, password: READER.password });
    expect(info).toMatchObject({ current: 'clickhouse', stored: 'clickhouse', clickhouse: { ...source, hasPassword: true } });
    expect((await first.h['dataset/info']({})).path).toBe(`clickhouse ${url}/${DATABASE}`);
    // With the password field left empty, the stored one goes to the nodes it was typed with.
    expect((await first.h['datasource/check'](source)).answeredBy).toBe(url);
    await first.core.shutdown();

    const second = start(first.home);
    await second.core.dataSources.openAtStart(() => {
      throw new Error('the stored ClickHouse source opens, through its fallback node');
    });
    expect(await second.h['datasource/get']({})).toMatchObject({
      current: 'clickhouse',
      startError: null,
      clickhouse: { ...source, hasPassword: true },
    });
    expect((await second.h['audience/count']({ state: 'CA' })).total).toBeGreaterThan(0);
    await second.h['datasource/use']({ kind: 'bundled' });
  });

  it('Use gives up on a server that accepts connections but never answers, after the ping wait, changing nothing', async () => {
    const { core, h } = start();
    await core.dataSources.openAtStart(() => core.openDataset(datasetPath));
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    try {
      const address = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
      await expect(
        h['datasource/use']({ kind: 'clickhouse', url: address, database: DATABASE, user: READER.username, password: READER.password }),
      ).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^Nothing answers at http:\/\/127\.0\.0\.1:\d+/) });
      expect(await h['datasource/get']({})).toMatchObject({ current: 'bundled', stored: 'embedded', clickhouse: null });
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('the choice survives a restart; an unreachable server at start is a notice, the bundled dataset answers, the choice is kept', async () => {
    const first = start();
    await first.core.dataSources.openAtStart(() => first.core.openDataset(datasetPath));
    await first.h['datasource/use']({ kind: 'clickhouse', url, database: DATABASE, user: READER.username, password: READER.password });
    await first.core.shutdown();

    const second = start(first.home);
    await second.core.dataSources.openAtStart(() => second.core.openDataset(datasetPath));
    expect(await second.h['datasource/get']({})).toMatchObject({ current: 'clickhouse', startError: null });
    expect((await second.h['dataset/info']({})).path).toBe(`clickhouse ${url}/${DATABASE}`);

    // The server moves away: the next start says so and answers from the bundled dataset.
    const moved = `http://127.0.0.1:${await closedPort()}`;
    second.core.appState
      .prepare('UPDATE settings SET value = ? WHERE key = ?')
      .run(JSON.stringify({ url: moved, database: DATABASE, user: READER.username }), CLICKHOUSE_SETTING);
    await second.core.shutdown();
    const fourth = start(first.home);
    await fourth.core.dataSources.openAtStart(() => {
      throw new Error('the fallback is the bundled dataset, not the remembered one');
    });
    const info = await fourth.h['datasource/get']({});
    expect(info).toMatchObject({ current: 'bundled', stored: 'clickhouse' });
    expect(info.startError).toMatch(
      /ClickHouse data source \(http:\/\/127\.0\.0\.1:\d+, database datasource_tests\) is not available: Nothing answers at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(fourth.core.notices).toContain(info.startError);
    expect((await fourth.h['app/notices']({})).notices.join(' ')).not.toContain(READER.password);
    expect(fourth.core.appState.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(KIND_SETTING)).toBe('"clickhouse"');

    // The stored password was typed for the address that moved: it is not sent to another one.
    await expect(fourth.h['datasource/use']({ kind: 'clickhouse', url, database: DATABASE, user: READER.username })).rejects.toMatchObject({
      message: expect.stringMatching(/refused the user or password/),
    });
    // Choosing the server again (at its right address, the password typed) answers from it, and the notice is history.
    await fourth.h['datasource/use']({ kind: 'clickhouse', url, database: DATABASE, user: READER.username, password: READER.password });
    expect(await fourth.h['datasource/get']({})).toMatchObject({ current: 'clickhouse', startError: null });
    expect(fourth.core.notices).not.toContain(info.startError);

    // An explicit dataset at start (command line) wins, and is not a change of the stored choice.
    await fourth.core.shutdown();
    const fifth = start(first.home);
    await fifth.core.dataSources.openAtStart(() => fifth.core.openDataset(datasetPath), true);
    expect(await fifth.h['datasource/get']({})).toMatchObject({ current: 'bundled', stored: 'clickhouse', startError: null });
  });
});
