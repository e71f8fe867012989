// Browser mode end to end: the real `serve` as a child process (its own home folder), its `api:` and
// `ui:` lines, the page and rpc behind the per-start token, the Host/Origin rules, and exports that
// can only land in the home folder's exports/.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RPC_TOKEN_HEADER, rpcPath } from '../../src/shared/rpcPaths';
import { ensureBuilt } from '../packaging/ensureBuilt';
import { SqlOracle } from '../support/oracle';

let child: ChildProcess;
let home: string;
let api: string;
let ui: URL;
let token: string;
let origin: string;

beforeAll(async () => {
  await ensureBuilt();
  home = mkdtempSync(join(tmpdir(), 'audience-desk-browser-'));
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/index.ts', 'serve', '--db', inject('datasetPath'), '--port', '0', '--home', home],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      if (/^ui: .*\n/m.test(out)) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}${err}`)));
  });
  api = /^api: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(lines)![1]!;
  ui = new URL(/^ui: (\S+)$/m.exec(lines)![1]!);
  token = ui.searchParams.get('token')!;
  origin = api;
}, 300_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
});

/** Answers are read loosely typed: the shapes are what these tests check. */
const json = async (r: Response): Promise<any> => r.json();

const rpc = (op: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${api}/ui/rpc/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [RPC_TOKEN_HEADER]: token, ...headers },
    body: JSON.stringify(body),
  });

/** node:http, because fetch will not send a forged Host header. */
function rawGet(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(api + path, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve prints', () => {
  it('the api: line, then the ui: line on the same port with a random token', () => {
    expect(ui.origin).toBe(api);
    expect(ui.pathname).toBe('/ui/');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('the page', () => {
  it('is refused without the token, or with a wrong one', async () => {
    for (const path of ['/ui/', '/ui/index.html', `/ui/?token=${'x'.repeat(43)}`, '/ui/?token=']) {
      const r = await fetch(api + path);
      expect(r.status).toBe(401);
      expect(await r.text()).not.toContain('<div id="app">');
    }
  });

  it('is served with the token, with a strict CSP, and sets a port-scoped HttpOnly cookie', async () => {
    const r = await fetch(ui);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await r.text()).toContain('<div id="app">');
    expect(r.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^adk_ui_${new URL(api).port}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/ui\//);
  });

  it('serves its assets to the cookie, and nothing without it', async () => {
    const html = await (await fetch(ui)).text();
    const asset = /src="\.\/([^"]+)"/.exec(html)![1]!;
    const cookie = (await fetch(ui)).headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${api}/ui/${asset}`)).status).toBe(401);
    const r = await fetch(`${api}/ui/${asset}`, { headers: { cookie } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${api}/ui/${asset}`, { headers: { cookie: 'adk_ui_1=wrong' } })).status).toBe(401);
  });

  it('never serves files outside the renderer folder', async () => {
    const cookie = (await fetch(ui)).headers.get('set-cookie')!.split(';')[0]!;
    for (const path of [
      '/ui/..%2f..%2fpackage.json',
      '/ui/%2e%2e/%2e%2e/package.json',
      '/ui/../package.json',
      '/ui/.hidden',
      '/ui/assets/',
    ])
      expect([400, 404]).toContain((await fetch(api + path, { headers: { cookie } })).status);
  });
});

describe('rpc', () => {
  it('answers nothing without the token header (a cookie is not enough)', async () => {
    const cookie = (await fetch(ui)).headers.get('set-cookie')!.split(';')[0]!;
    const attempts: Array<Record<string, string>> = [
      { [RPC_TOKEN_HEADER]: '' },
      { [RPC_TOKEN_HEADER]: 'wrong' },
      { [RPC_TOKEN_HEADER]: '', cookie },
    ];
    for (const headers of attempts) {
      const r = await rpc('dataset/info', {}, headers);
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    }
    // Even an unknown operation answers 401 first: nothing is revealed to a caller without the token.
    expect((await rpc('nope/nope', {}, { [RPC_TOKEN_HEADER]: 'wrong' })).status).toBe(401);
  });

  it('carries the contract operations to the handler table with the token', async () => {
    const oracle = new SqlOracle(inject('datasetPath'));
    try {
      const info = await (await rpc('dataset/info', {})).json();
      expect(info).toMatchObject({ ok: true, value: { records: inject('testRows') } });
      const filters = [['GENDER', ['F']]];
      const r = await fetch(api + rpcPath('audience/count'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [RPC_TOKEN_HEADER]: token },
        body: JSON.stringify({ state: 'CA', filters }),
      });
      expect((await json(r)).value.total).toBe(oracle.count('CA', filters as never));
    } finally {
      oracle.close();
    }
  });

  it('answers errors as envelopes with their HTTP status', async () => {
    let r = await rpc('audience/count', { state: 'XX', filters: [] });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ ok: false, error: { code: 'invalid_request', field: 'state' } });
    for (const op of ['nope/nope', 'constructor', '__proto__/x']) {
      r = await rpc(op, {});
      expect(r.status).toBe(404);
      expect(await r.json()).toMatchObject({ ok: false, error: { code: 'not_found' } });
    }
    r = await fetch(`${api}/ui/rpc/dataset/info`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', [RPC_TOKEN_HEADER]: token },
      body: '{}',
    });
    expect(r.status).toBe(415);
    expect(await r.json()).toMatchObject({ ok: false, error: { code: 'unsupported_media_type' } });
    r = await rpc('audiences/save', { name: 'x'.repeat(300 * 1024), state: 'CA', filters: [] });
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ ok: false, error: { code: 'payload_too_large' } });
    r = await fetch(`${api}/ui/rpc/dataset/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [RPC_TOKEN_HEADER]: token },
      body: '{not json',
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ ok: false, error: { code: 'invalid_json' } });
  });

  it("accepts the UI's own origin on /ui/ only, and refuses foreign origins and hosts", async () => {
    expect((await rpc('keys/list', {}, { origin })).status).toBe(200);
    expect((await rpc('keys/list', {}, { origin: origin.replace('127.0.0.1', 'localhost') })).status).toBe(200);
    for (const foreign of ['https://evil.example', 'http://127.0.0.1:1', 'null']) {
      const r = await rpc('keys/list', {}, { origin: foreign });
      expect(r.status).toBe(403);
      expect(await r.json()).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    expect((await rpc('keys/list', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await fetch(ui, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    // The API itself does not widen: a page of our UI origin cannot call /api/ directly.
    expect((await fetch(`${api}/api/health`, { headers: { origin } })).status).toBe(403);
    expect(await rawGet(`/ui/?token=${token}`, { host: 'attacker.example' })).toBe(403);
    expect(await rawGet(`/ui/?token=${token}`, { host: `localhost:${new URL(api).port}` })).toBe(200);
  });

  it('exports only into <home>/exports, whatever name the page sends', async () => {
    const r = await json(await rpc('export/start', { state: 'WY', filters: [], format: 'csv', fileName: '../../../etc/evil.sh' }));
    expect(r.ok).toBe(true);
    expect(r.value.path).toBe(join(home, 'exports', 'evil.sh.csv'));
    let job = r.value;
    while (job.status === 'running') job = (await json(await rpc('export/status', { id: job.id }))).value;
    expect(job.status).toBe('done');
    expect(readdirSync(join(home, 'exports'))).toEqual(['evil.sh.csv']);
    const second = (await json(await rpc('export/start', { state: 'WY', filters: [], format: 'csv', fileName: 'evil.sh.csv' }))).value;
    expect(second.path).toBe(join(home, 'exports', 'evil.sh (2).csv'));
    const audit = (await json(await rpc('audit/list', {}))).value;
    expect(audit.some((e: { file: string; actor: string }) => e.file === job.path && e.actor === 'UI')).toBe(true);
    expect(existsSync(join(home, 'etc'))).toBe(false);
  });
});
