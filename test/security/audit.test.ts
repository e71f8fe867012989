// Promise 5: what the server logs or records never holds record data or a key. Requests that return
// records (and requests that put a key or a record's values where they do not belong) leave no PID,
// name or key in the request log, in the app-state files, or in anything a spawned `serve` writes to
// stdout or stderr.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore } from '../../src/core/createCore';
import { send, sleep, startSecurityApi, type SecurityApi } from './support';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-audit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Secrets {
  pids: string[];
  names: string[];
}

/** Requests that return records, and hostile ones carrying keys and record values; returns what came back. */
async function exercise(url: string, key: string): Promise<Secrets> {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    send(url, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
      body: JSON.stringify(body),
    });
  const preview = JSON.parse((await post('/api/audiences/preview', { state: 'CA', limit: 50 })).body);
  const search = JSON.parse((await post('/api/audiences/search', { state: 'TX', limit: 20, filters: [['GENDER', ['F']]] })).body);
  const pids: string[] = [...preview.results.map((r: { pid: string }) => r.pid), ...search.results.map((r: { PID: string }) => r.PID)];
  const names: string[] = [
    ...preview.results.flatMap((r: { fname: string; lname: string }) => [r.fname, r.lname]),
    ...search.results.flatMap((r: { FNAME: string; LNAME: string }) => [r.FNAME, r.LNAME]),
  ];
  expect(pids.length).toBeGreaterThan(20);
  // Record values and keys where they do not belong: in filters, field names, paths and queries.
  await post('/api/audiences/search', {
    state: 'CA',
    filters: [
      ['PID', [pids[0]]],
      ['LNAME', [names[1]]],
    ],
  });
  await post('/api/audiences/search', { state: 'CA', filters: [[pids[1], ['x']]] });
  await post('/api/audiences/search', { state: 'CA', filters: [['AGE', [names[0]]]] });
  await post(`/api/audiences/preview?key=${key}&pid=${pids[2]}`, { state: 'CA' });
  await post(`/api/people/${pids[3]}`, { state: 'CA' });
  await post('/api/audiences/preview', { state: 'CA' }, { 'x-api-key': `${key}x` });
  return { pids: [...new Set(pids)], names: [...new Set(names.filter((n) => n.length >= 4))] };
}

function expectClean(text: string, secrets: Secrets, keys: string[], where: string) {
  for (const key of keys) {
    expect(text.includes(key), `${where} holds a key`).toBe(false);
    expect(text.includes(key.slice(4, 24)), `${where} holds part of a key`).toBe(false);
  }
  for (const pid of secrets.pids) expect(text.includes(pid), `${where} holds PID ${pid}`).toBe(false);
  for (const name of secrets.names)
    expect(new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(text), `${where} holds the name ${name}`).toBe(false);
}

describe('request log and app state', () => {
  let api: SecurityApi;
  afterAll(async () => api?.close());

  it('the request log holds its number, when, which key name, which operation, status and ms; never record data or a key', async () => {
    api = await startSecurityApi(inject('datasetPath'));
    const secrets = await exercise(api.url, api.key);
    const entries = api.server.requestLog.recent(200);
    expect(entries.length).toBeGreaterThanOrEqual(8);
    for (const e of entries)
      expect(Object.keys(e).sort()).toEqual(
        e.status >= 400
          ? ['at', 'error', 'keyName', 'ms', 'operation', 'seq', 'status']
          : ['at', 'keyName', 'ms', 'operation', 'seq', 'status'],
      );
    // A refused request says why (its code and message), with what it quoted blanked.
    expect(entries.filter((e) => e.error).map((e) => e.error!.code)).toEqual(
      expect.arrayContaining(['invalid_request', 'unauthorized', 'not_found']),
    );
    expectClean(JSON.stringify(entries), secrets, [api.key], 'the request log');
  });

  it('the app-state files (database and WAL) hold no record data and no key after those requests', async () => {
    const secrets = await exercise(api.url, api.key);
    api.core.appState.pragma('wal_checkpoint(PASSIVE)');
    for (const file of readdirSync(api.homeDir)) {
      const text = readFileSync(join(api.homeDir, file)).toString('latin1');
      expectClean(text, secrets, [api.key], file);
    }
  });
});

describe('a spawned serve process', () => {
  it('writes nothing to stdout or stderr that holds a key, a PID or a name from the results', async () => {
    const home = join(dir, 'serve-home');
    const core = createCore({ homeDir: home });
    const { key } = core.keys.create('audit');
    await core.shutdown();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/index.ts', 'serve', '--db', inject('datasetPath'), '--port', '0', '--home', home],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const until = Date.now() + 30_000;
      while (!/api: http:\/\/127\.0\.0\.1:\d+/.test(stdout) && child.exitCode === null && Date.now() < until) await sleep(50);
      const url = /api: (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      expect(url, stdout + stderr).toBeDefined();
      const secrets = await exercise(url!, key);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      console.info(
        `audit: serve wrote ${stdout.length} characters to stdout (${stdout
          .trim()
          .split('\n')
          .map((l) => l.split(':')[0])
          .join(', ')} lines) and ${stderr.length} to stderr`,
      );
      expectClean(stdout, secrets, [key], 'serve stdout');
      expectClean(stderr, secrets, [key], 'serve stderr');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
