// Loading into ClickHouse is atomic: a load that fails part-way, or that the server refuses, leaves
// the previous table serving and removes what it wrote; a complete one is what a running engine
// answers from next. The CLI loads and serves with credentials from a file or the environment, and
// no message, log line or answer ever carries the password.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { LOADER, READER } from './support/localServers';
import type { Audience } from '../../src/core/audience/contract/engine';
import { ClickHouseEngine } from '../../src/core/clickhouse/clickhouseEngine';
import { ClickHouseConnection } from '../../src/core/clickhouse/connection';
import { PASSWORD_ENV, USER_ENV } from '../../src/core/clickhouse/credentials';
import { loadIntoClickHouse } from '../../src/core/clickhouse/load';
import { generateDataset } from '../../src/core/generate';
import { SqlOracle } from '../support/oracle';
import { describeClickHouse, useLocalClickHouse } from './support/localClickHouse';

const run = promisify(execFile);
/** How often the ClickHouse engine asks whether a new load replaced its dataset (FRESHNESS_MS in clickhouseEngine.ts). */
const FRESHNESS_MS = 2_000;

describeClickHouse('loading a dataset into ClickHouse', () => {
  const clickhouse = useLocalClickHouse('load_tests');
  let dir: string;
  let small: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audience-desk-chload-'));
    small = join(dir, 'small.sqlite');
    generateDataset({ rows: 3000, seed: 8, out: small });
    await loadIntoClickHouse({ datasetPath: inject('tinyDatasetPath'), target: clickhouse().singleLoad });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function tables(): Promise<string[]> {
    const connection = new ClickHouseConnection(clickhouse().singleLoad);
    try {
      return (await connection.rows('SHOW TABLES FROM load_tests')).map((r) => r[0]!);
    } finally {
      await connection.close();
    }
  }

  it('a load that fails part-way leaves the previous table serving and nothing of its own', async () => {
    const engine = await ClickHouseEngine.open(clickhouse().singleServe);
    try {
      const before = await engine.summary();
      expect(before.records).toBe(40);
      await expect(
        loadIntoClickHouse({
          datasetPath: small,
          target: clickhouse().singleLoad,
          onProgress: (records) => {
            if (records >= 2000) throw new Error('stopped on purpose');
          },
        }),
      ).rejects.toThrow('stopped on purpose');
      expect(await tables()).toEqual(['people', 'people_meta']);
      expect(await engine.summary()).toEqual(before);
      const fresh = await ClickHouseEngine.open(clickhouse().singleServe);
      expect((await fresh.summary()).records).toBe(40);
      fresh.close();
    } finally {
      engine.close();
    }
  });

  it('https: with the CA that signed the server certificate it answers as http does; without it, a refusal that says why', async () => {
    const { single } = clickhouse().servers;
    const overHttps = { ...clickhouse().singleServe, url: single.httpsUrl!, caCertificate: single.caCertificate! };
    const [plain, secure] = [await ClickHouseEngine.open(clickhouse().singleServe), await ClickHouseEngine.open(overHttps)];
    try {
      const [a, b] = [await plain.summary(), await secure.summary()];
      expect(b.source).toMatch(/^clickhouse https:\/\//);
      expect({ ...b, source: a.source }).toEqual(a);
    } finally {
      plain.close();
      secure.close();
    }
    const untrusted = (await ClickHouseEngine.open({ ...overHttps, caCertificate: undefined }).catch((e: unknown) => e)) as Error;
    expect(untrusted.message).toMatch(/certificate this computer does not trust .*--ca-cert/);
    expect(untrusted.message).not.toContain(READER.password);
    const check = await run(
      'tsx',
      [
        'src/cli/index.ts',
        'clickhouse',
        'check',
        '--url',
        single.httpsUrl!,
        '--database',
        'load_tests',
        '--ca-cert',
        single.caCertificate!,
      ],
      { encoding: 'utf8', env: { ...process.env, [USER_ENV]: READER.username, [PASSWORD_ENV]: READER.password } },
    );
    expect(check.stdout).toMatch(new RegExp(`ClickHouse 18\\.16\\.\\d+ answers at 127\\.0\\.0\\.1:${new URL(single.httpsUrl!).port}\n`));
    expect(check.stdout + check.stderr).not.toContain(READER.password);
  }, 120_000);

  it('the read-only serving user cannot load: refused, and the previous table still serves', async () => {
    await expect(loadIntoClickHouse({ datasetPath: small, target: clickhouse().singleServe })).rejects.toThrow(/readonly|read-only/i);
    expect(await tables()).toEqual(['people', 'people_meta']);
  });

  it('a complete load switches a running engine to the new records: its cached counts and export bookmarks are dropped', async () => {
    // An export chunk of 2 matches, so an export reads between cached bookmarks (pidPages.ts).
    const engine = await ClickHouseEngine.open(clickhouse().singleServe, { exportChunk: 2 });
    const [before, after] = [new SqlOracle(inject('tinyDatasetPath')), new SqlOracle(small)];
    const audience: Audience = { state: 'CA', filters: [] };
    const page = async (skip: number, limit: number) => (await engine.previewPage(audience, skip, limit)).results.map((r) => r.pid);
    const exported = async () => {
      const pids: string[] = [];
      for await (const batch of (await engine.records(audience)).batches(100))
        pids.push(...batch.map((t) => String((JSON.parse(t) as unknown[])[0])));
      return pids;
    };
    try {
      // The two datasets differ where it is asked: 5 people in CA, then 356.
      expect(before.count('CA')).toBe(5);
      expect(after.count('CA')).toBe(356);
      // Answered from the first dataset, and kept in the engine's cache: the count and the export's
      // bookmarks of CA's matches; pages by rank from the 4th match, and one past its last.
      expect(await engine.count(audience)).toBe(5);
      expect(await exported()).toEqual(before.pids('CA', [], 5, 0));
      expect(await page(3, 2)).toEqual(before.pids('CA', [], 2, 3));
      expect(await page(40, 5)).toEqual([]);

      const result = await loadIntoClickHouse({ datasetPath: small, target: clickhouse().singleLoad });
      expect(result.records).toBe(3000);
      expect(await tables()).toEqual(['people', 'people_meta']);
      // The engine looks for a new load every FRESHNESS_MS (2 s, clickhouseEngine.ts): the same request
      // answers the new dataset's count once it has looked (the margin is for a loaded machine). With
      // its cache kept, it would answer 5 for good.
      await vi.waitFor(async () => expect(await engine.count(audience)).not.toBe(5), { timeout: FRESHNESS_MS + 10_000, interval: 100 });
      expect(await engine.count(audience)).toBe(after.count('CA'));
      // The export reads the new records, not between the old dataset's bookmarks; so do deep pages.
      expect(await exported()).toEqual(after.pids('CA', [], 1000, 0));
      expect(await page(3, 2)).toEqual(after.pids('CA', [], 2, 3));
      expect(await page(40, 5)).toEqual(after.pids('CA', [], 5, 40));
      expect(await page(351, 10)).toEqual(after.pids('CA', [], 10, 351));
      expect((await engine.summary()).records).toBe(3000);
    } finally {
      engine.close();
      before.close();
      after.close();
    }
  });

  it('a wrong password is named as such, without the password; an address with credentials in it is refused', async () => {
    const secret = 'not-the-password-9c1e';
    const engine = ClickHouseEngine.open({ ...clickhouse().singleServe, credentials: { username: READER.username, password: secret } });
    const error = (await engine.catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/refused the user or password/);
    expect(error.message).not.toContain(secret);
    const url = new URL(clickhouse().singleServe.url);
    url.username = READER.username;
    url.password = secret;
    const refused = (await ClickHouseEngine.open({ ...clickhouse().singleServe, url: url.toString() }).catch((e: unknown) => e)) as Error;
    expect(refused.message).toMatch(/not in the address/);
    expect(refused.message).not.toContain(secret);
  });

  it('cli clickhouse load (credentials file) and check (environment) work, and print no password', async () => {
    const credentials = join(dir, 'loader.json');
    writeFileSync(credentials, JSON.stringify({ user: LOADER.username, password: LOADER.password }), { mode: 0o600 });
    const { url } = clickhouse().singleLoad;
    const load = await run(
      'tsx',
      ['src/cli/index.ts', 'clickhouse', 'load', '--db', small, '--url', url, '--database', 'load_tests', '--credentials', credentials],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(load.stdout.trim().split('\n').pop()!)).toMatchObject({ records: 3000, shards: 1 });
    const check = await run('tsx', ['src/cli/index.ts', 'clickhouse', 'check', '--url', url, '--database', 'load_tests'], {
      encoding: 'utf8',
      env: { ...process.env, [USER_ENV]: READER.username, [PASSWORD_ENV]: READER.password },
    });
    expect(check.stdout).toMatch(/ClickHouse 18\.16\.\d+ answers at 127\.0\.0\.1:\d+/);
    expect(check.stdout).toContain('3000 records');
    const wrong = await run('tsx', ['src/cli/index.ts', 'clickhouse', 'check', '--url', url, '--database', 'load_tests'], {
      encoding: 'utf8',
      env: { ...process.env, [USER_ENV]: READER.username, [PASSWORD_ENV]: 'wrong-secret-4417' },
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(wrong).toMatchObject({ code: 1 });
    expect((wrong as { stderr: string }).stderr).toMatch(/refused the user or password/);
    for (const out of [load.stdout, load.stderr, check.stdout, check.stderr, (wrong as { stderr: string }).stderr]) {
      for (const secret of [LOADER.password, READER.password, 'wrong-secret-4417']) expect(out).not.toContain(secret);
    }
  }, 300_000);

  it('serve --clickhouse answers the API from ClickHouse with the read-only user, through a fallback node when the first does not answer', async () => {
    const home = join(dir, 'home');
    // An address nobody listens on (a port just freed) named first: every request must go to the fallback.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const deadPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    // The dead address first, the live server as its fallback node: for serve and for check alike.
    const nodes = (flag: string) => [
      flag,
      `http://127.0.0.1:${deadPort}`,
      '--fallback-urls',
      clickhouse().singleServe.url,
      '--database',
      'load_tests',
    ];
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/index.ts', 'serve', ...nodes('--clickhouse'), '--port', '0', '--home', home],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, [USER_ENV]: READER.username, [PASSWORD_ENV]: READER.password },
      },
    );
    let output = '';
    child.stderr.on('data', (d) => (output += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          output += d;
          const m = /api: (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
      });
      const health = (await (await fetch(url + '/api/health')).json()) as { records: number };
      expect(health.records).toBe(3000);
      const { stdout } = await run('tsx', ['src/cli/index.ts', 'keys', 'create', '--name', 'ch', '--home', home], { encoding: 'utf8' });
      const key = stdout.trim().split('\n').pop()!;
      const answer = await fetch(url + '/api/audiences/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ state: 'CA', limit: 3 }),
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { results: unknown[] }).results).toHaveLength(3);
      // `cli clickhouse check` with the same nodes names the one that answered.
      const check = await run('tsx', ['src/cli/index.ts', 'clickhouse', 'check', ...nodes('--url')], {
        encoding: 'utf8',
        env: { ...process.env, [USER_ENV]: READER.username, [PASSWORD_ENV]: READER.password },
      });
      const live = new URL(clickhouse().singleServe.url).host;
      expect(check.stdout).toContain(`answers at ${live} (a fallback node: 127.0.0.1:${deadPort} did not answer)`);
      output += check.stdout + check.stderr;
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    expect(output).not.toContain(READER.password);
  }, 300_000);
});
