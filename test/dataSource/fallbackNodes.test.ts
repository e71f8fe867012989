// Fallback nodes of the ClickHouse data source (issue 38), as the Data source screen sends them: each
// address checked by the main address's rules, the error naming the bad one (never a user or password
// typed into it), and a refused Test connection or Use changes nothing: the kept setting and stored
// password stay as they were. A real core with its own app state (a real SQLite file) and the real
// FileSecretStore file; nothing here needs a ClickHouse server (test/clickhouse has the ones that do).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { DATA_SOURCE_CLICKHOUSE_SETTING } from '../../src/core/appState/settingsTable';
import { DataSourceSettings } from '../../src/core/dataSource/dataSourceSettings';
import { credentialsFilePath, FileSecretStore } from '../../src/core/dataSource/fileSecretStore';
import { createHandlers, type HandlerTable } from '../../src/core/handlers';
import { failure } from '../handlers/harness';

const KEPT = { url: 'http://127.0.0.1:1', fallbackUrls: ['http://127.0.0.1:2'], database: 'audience_desk', user: 'analyst' };
const SECRET = 'Typed-Into-Address-41aa';
const PASSWORD = 'Stored-Password-0b7e';

describe('fallback nodes of the ClickHouse data source', () => {
  let home: string;
  let core: Core;
  let h: HandlerTable;
  const settingRow = () => core.appState.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(DATA_SOURCE_CLICKHOUSE_SETTING);

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'audience-desk-fallbacks-'));
    core = createCore({ homeDir: home, datasetPath: inject('datasetPath') });
    h = createHandlers(core, {
      resolveExportPath: async () => null,
      pickImportFiles: async () => ({ files: [], inbox: null }),
      apiStatus: () => ({ url: null, running: false, recent: [] }),
    });
    // A ClickHouse source kept from before, with its password: a refused change must leave both.
    new DataSourceSettings(core.appState).useClickHouse(KEPT);
    await new FileSecretStore(credentialsFilePath(home)).save({
      username: KEPT.user,
      password: PASSWORD,
      url: KEPT.url,
      fallbackUrls: KEPT.fallbackUrls,
    });
  });
  afterAll(async () => {
    await core.shutdown();
    rmSync(home, { recursive: true, force: true });
  });

  const BAD: Array<[string, string, RegExp]> = [
    ['ftp://127.0.0.1:21', 'ftp://127.0.0.1:21', /must start with http:\/\/ or https:\/\//],
    ['not an address', 'not an address', /must be a URL such as http:\/\/127\.0\.0\.1:8123/],
    [`http://reader:${SECRET}@127.0.0.1:9000`, 'http://127.0.0.1:9000', /must not hold the user or password/],
    [`reader:${SECRET}@127.0.0.1`, '…@127.0.0.1', /must start with http:\/\/ or https:\/\//],
    ['http://127.0.0.1:8124', 'http://127.0.0.1:8124', /is named twice \(or is the address itself\)/],
    ['http://127.0.0.1:8123', 'http://127.0.0.1:8123', /is named twice \(or is the address itself\)/],
  ];

  for (const [bad, named, why] of BAD)
    it(`refuses the fallback node "${named}" by name, for Test connection and Use, changing nothing`, async () => {
      const before = { row: settingRow(), secret: readFileSync(credentialsFilePath(home), 'utf8') };
      const input = {
        url: 'http://127.0.0.1:8123',
        fallbackUrls: ['http://127.0.0.1:8124', bad],
        database: 'audience_desk',
        user: 'reader',
        password: 'typed-now',
      };
      for (const error of [
        await failure(h['datasource/check'](input)),
        await failure(h['datasource/use']({ kind: 'clickhouse', ...input })),
      ]) {
        expect(error).toMatchObject({ code: 'invalid_request', field: 'fallbackUrls' });
        expect(error.message).toContain(`The fallback node address ${named} `);
        expect(error.message).toMatch(why);
        expect(error.message).not.toContain(SECRET);
      }
      expect(settingRow()).toBe(before.row);
      expect(readFileSync(credentialsFilePath(home), 'utf8')).toBe(before.secret);
      expect(await h['datasource/get']({})).toMatchObject({
        current: 'dataset',
        stored: 'clickhouse',
        clickhouse: { ...KEPT, hasPassword: true },
      });
    });

  it('refuses more fallback nodes than the contract allows, naming the field', async () => {
    const many = Array.from({ length: 17 }, (_, i) => `http://127.0.0.1:${9000 + i}`);
    const error = await failure(h['datasource/check']({ url: 'http://127.0.0.1:8123', fallbackUrls: many, database: 'd', user: 'u' }));
    expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('fallbackUrls') });
  });

  it('reads a setting kept before fallback nodes existed as having none, and a damaged list as no setting', () => {
    const settings = new DataSourceSettings(core.appState);
    const write = (value: unknown) =>
      core.appState.prepare('UPDATE settings SET value = ? WHERE key = ?').run(JSON.stringify(value), DATA_SOURCE_CLICKHOUSE_SETTING);
    const row = settingRow();
    try {
      write({ url: KEPT.url, database: KEPT.database, user: KEPT.user });
      expect(settings.clickhouse()).toStrictEqual({ url: KEPT.url, fallbackUrls: [], database: KEPT.database, user: KEPT.user });
      write({ ...KEPT, fallbackUrls: 'http://127.0.0.1:2' });
      expect(settings.clickhouse()).toBeNull();
      write({ ...KEPT, fallbackUrls: [''] });
      expect(settings.clickhouse()).toBeNull();
    } finally {
      core.appState.prepare('UPDATE settings SET value = ? WHERE key = ?').run(row, DATA_SOURCE_CLICKHOUSE_SETTING);
    }
    expect(settings.clickhouse()).toStrictEqual(KEPT);
    expect(existsSync(credentialsFilePath(home))).toBe(true);
  });
});
