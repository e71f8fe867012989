// Promise 1, over plain HTTP: only our callers get in. 127.0.0.1 only; Host must be a loopback name
// with our port (DNS rebinding); Origin refused unless allow-listed; Sec-Fetch-Site cross-site
// refused; no CORS headers and no preflight; the key only in X-API-KEY, never in a URL or a log.
// (test/api/errors.test.ts already has one foreign Host and one foreign Origin; these are the rest.)
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { envelopeProblem, send, sendRaw, parseRaw, startSecurityApi, type SecurityApi } from './support';

let api: SecurityApi;
beforeAll(async () => {
  api = await startSecurityApi(inject('datasetPath'), { record: true });
});
afterAll(async () => api.close());

const PREVIEW = JSON.stringify({ state: 'CA', limit: 3 });
const json = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', 'x-api-key': api.key, ...extra });

function expectNoCors(headers: Record<string, unknown>) {
  expect(Object.keys(headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
}

describe('listening address', () => {
  it('listens on 127.0.0.1 only', () => {
    const address = api.server.app.server.address();
    expect(address).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
  });

  it('refuses connections on every other local address of this machine (other interfaces, ::1)', async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && !a.address.startsWith('fe80'))
      .map((a) => a!.address);
    const targets = [...others, '::1'];
    const outcomes = await Promise.all(
      targets.map(
        (host) =>
          new Promise<string>((resolve) => {
            const socket = connect({ host, port: api.port });
            const timer = setTimeout(() => {
              socket.destroy();
              resolve('timeout');
            }, 2_000);
            socket.once('connect', () => {
              clearTimeout(timer);
              socket.destroy();
              resolve('connected');
            });
            socket.once('error', (e: NodeJS.ErrnoException) => {
              clearTimeout(timer);
              resolve(e.code ?? 'error');
            });
          }),
      ),
    );
    // Recorded for SECURITY.md: which addresses were tried here.
    console.info(`other local addresses tried: ${targets.map((t, i) => `${t} -> ${outcomes[i]}`).join(', ')}`);
    for (const outcome of outcomes) expect(outcome).not.toBe('connected');
  });
});

describe('Host header (DNS rebinding)', () => {
  it('accepts only 127.0.0.1, localhost and [::1] with our own port', async () => {
    for (const host of [`127.0.0.1:${api.port}`, `localhost:${api.port}`, `[::1]:${api.port}`, `LOCALHOST:${api.port}`])
      expect((await send(api.url, { path: '/api/health', headers: { host } })).status, host).toBe(200);
  });

  it.each([
    ['a rebinding name with our port', (p: number) => `attacker.test:${p}`],
    ['a name that starts like ours', (p: number) => `localhost.attacker.test:${p}`],
    ['a name that ends like ours', (p: number) => `attacker-localhost:${p}`],
    ['our address without the port', () => '127.0.0.1'],
    ['our name without the port', () => 'localhost'],
    ['our address with another port', (p: number) => `127.0.0.1:${p + 1}`],
    ['another loopback address', (p: number) => `127.0.0.2:${p}`],
    ['the 0.0.0.0 address', (p: number) => `0.0.0.0:${p}`],
    ['a decimal IP spelling', (p: number) => `2130706433:${p}`],
    ['an IPv4-mapped IPv6 spelling', (p: number) => `[::ffff:127.0.0.1]:${p}`],
    ['a trailing dot', (p: number) => `localhost.:${p}`],
    ['userinfo', (p: number) => `user@127.0.0.1:${p}`],
  ])('refuses %s with 403 before the key is even looked at', async (_label, host) => {
    const res = await send(api.url, {
      method: 'POST',
      path: '/api/audiences/preview',
      headers: { ...json(), host: host(api.port) },
      body: PREVIEW,
    });
    expect(res.status).toBe(403);
    expect(envelopeProblem(res.status, res.body)).toBeNull();
    expect(res.body).not.toContain('"results"');
  });

  it('refuses a request with no Host at all (HTTP/1.0)', async () => {
    const { text } = await sendRaw(api.port, 'GET /api/health HTTP/1.0\r\n\r\n');
    expect(parseRaw(text).status).toBe(403);
  });

  it('refuses an empty Host', async () => {
    const { text } = await sendRaw(api.port, 'GET /api/health HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n');
    expect([400, 403]).toContain(parseRaw(text).status);
  });

  it('refuses two Host headers, whichever comes first (Node itself would keep the first and drop the other)', async () => {
    for (const [first, second] of [
      [`127.0.0.1:${api.port}`, `attacker.test:${api.port}`],
      [`attacker.test:${api.port}`, `127.0.0.1:${api.port}`],
    ]) {
      const { text } = await sendRaw(
        api.port,
        `GET /api/health HTTP/1.1\r\nHost: ${first}\r\nHost: ${second}\r\nConnection: close\r\n\r\n`,
      );
      expect(parseRaw(text).status).toBe(403);
    }
  });
});

describe('Origin and Sec-Fetch-Site', () => {
  it.each([
    'http://attacker.test',
    'null',
    'http://127.0.0.1:1',
    'http://localhost',
    'file://',
    'chrome-extension://abcdefghijklmnop',
    'app://audience-desk',
  ])('refuses Origin %s with 403 even with a valid key', async (origin) => {
    const res = await send(api.url, { method: 'POST', path: '/api/audiences/search', headers: json({ origin }), body: PREVIEW });
    expect(res.status).toBe(403);
    expect(envelopeProblem(res.status, res.body)).toBeNull();
    expectNoCors(res.headers);
  });

  it("refuses the API's own origin too: no page may call /api/*, not even one served by this server", async () => {
    for (const origin of [api.url, `http://localhost:${api.port}`]) {
      const res = await send(api.url, { method: 'POST', path: '/api/audiences/preview', headers: json({ origin }), body: PREVIEW });
      expect(res.status, origin).toBe(403);
    }
  });

  it('refuses Sec-Fetch-Site cross-site, and same-site without an allowed Origin (a no-cors GET from another port); same-origin and none pass', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await send(api.url, {
        method: 'POST',
        path: '/api/audiences/preview',
        headers: json({ 'sec-fetch-site': site }),
        body: PREVIEW,
      });
      expect(res.status, site).toBe(403);
      expect(
        (await send(api.url, { path: '/api/health', headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' } })).status,
        site,
      ).toBe(403);
    }
    for (const site of ['none', 'same-origin']) {
      const res = await send(api.url, {
        method: 'POST',
        path: '/api/audiences/preview',
        headers: json({ 'sec-fetch-site': site }),
        body: PREVIEW,
      });
      expect(res.status, site).toBe(200);
    }
  });

  it('an allow-listed origin (configured, empty by default) is let through', async () => {
    const allowed = await startSecurityApi(inject('datasetPath'), { server: { allowedOrigins: ['http://tool.local:8080'] } });
    try {
      const res = await send(allowed.url, {
        method: 'POST',
        path: '/api/audiences/preview',
        headers: { 'content-type': 'application/json', 'x-api-key': allowed.key, origin: 'http://tool.local:8080' },
        body: PREVIEW,
      });
      expect(res.status).toBe(200);
      expectNoCors(res.headers);
      const other = await send(allowed.url, {
        method: 'POST',
        path: '/api/audiences/preview',
        headers: { 'content-type': 'application/json', 'x-api-key': allowed.key, origin: 'http://tool.local:8081' },
        body: PREVIEW,
      });
      expect(other.status).toBe(403);
      // An allowed origin on another port of the same host is same-site for the browser: still let through.
      const sameSite = await send(allowed.url, {
        method: 'POST',
        path: '/api/audiences/preview',
        headers: {
          'content-type': 'application/json',
          'x-api-key': allowed.key,
          origin: 'http://tool.local:8080',
          'sec-fetch-site': 'same-site',
        },
        body: PREVIEW,
      });
      expect(sameSite.status).toBe(200);
    } finally {
      await allowed.close();
    }
  });
});

describe('CORS', () => {
  it('refuses a preflight (OPTIONS with Origin and Access-Control-Request-Method) with 403 and no CORS headers', async () => {
    for (const path of ['/api/audiences/preview', '/api/audiences/search', '/api/health']) {
      const res = await send(api.url, {
        method: 'OPTIONS',
        path,
        headers: {
          origin: 'http://attacker.test',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-api-key',
        },
      });
      expect(res.status, path).toBe(403);
      expectNoCors(res.headers);
    }
  });

  it('OPTIONS without an Origin is just a method not allowed, still without CORS headers', async () => {
    const res = await send(api.url, {
      method: 'OPTIONS',
      path: '/api/audiences/preview',
      headers: { 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(405);
    expectNoCors(res.headers);
  });

  it('no answer of any kind carries a CORS header', async () => {
    const answers = [
      await send(api.url, { path: '/api/health' }),
      await send(api.url, { path: '/api/openapi.json' }),
      await send(api.url, { method: 'POST', path: '/api/audiences/preview', headers: json(), body: PREVIEW }),
      await send(api.url, { method: 'POST', path: '/api/audiences/preview', headers: json({ 'x-api-key': 'nope' }), body: PREVIEW }),
      await send(api.url, { path: '/nowhere' }),
    ];
    for (const res of answers) expectNoCors(res.headers);
  });
});

describe('the key: only in X-API-KEY, never in a URL or a log', () => {
  it.each(['api_key', 'apiKey', 'key', 'x-api-key', 'X-API-KEY', 'token', 'access_token'])(
    'a key in the query parameter %s is not accepted (401)',
    async (param) => {
      const res = await send(api.url, {
        method: 'POST',
        path: `/api/audiences/preview?${param}=${encodeURIComponent(api.key)}`,
        headers: { 'content-type': 'application/json' },
        body: PREVIEW,
      });
      expect(res.status).toBe(401);
      expect(res.body).not.toContain(api.key);
    },
  );

  it('nor as a bearer token, basic auth, cookie or a lower-case twin header', async () => {
    const attempts: Array<Record<string, string>> = [
      { authorization: `Bearer ${api.key}` },
      { authorization: `Basic ${Buffer.from(`${api.key}:`).toString('base64')}` },
      { cookie: `x-api-key=${api.key}` },
      { 'api-key': api.key },
    ];
    for (const headers of attempts) {
      const res = await send(api.url, {
        method: 'POST',
        path: '/api/audiences/preview',
        headers: { 'content-type': 'application/json', ...headers },
        body: PREVIEW,
      });
      expect(res.status, Object.keys(headers)[0]).toBe(401);
    }
  });

  it('two X-API-KEY headers are refused, not merged or guessed at', async () => {
    const { text } = await sendRaw(
      api.port,
      `POST /api/audiences/preview HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nContent-Type: application/json\r\nX-API-KEY: ${api.key}\r\nX-API-KEY: ${api.key}\r\nContent-Length: ${PREVIEW.length}\r\nConnection: close\r\n\r\n${PREVIEW}`,
    );
    expect(parseRaw(text).status).toBe(401);
  });

  it('nothing the request log holds contains a key, wherever the caller put it', async () => {
    const other = api.core.keys.create('second key').key;
    await send(api.url, {
      method: 'POST',
      path: `/api/audiences/preview?api_key=${other}`,
      headers: { 'content-type': 'application/json' },
      body: PREVIEW,
    });
    await send(api.url, { method: 'POST', path: `/api/${other}/preview`, headers: json(), body: PREVIEW });
    await send(api.url, { method: 'POST', path: `/api/audiences/${encodeURIComponent(other)}`, headers: json(), body: PREVIEW });
    await send(api.url, { method: 'GET', path: `/api/health/${other.slice(4)}`, headers: json() });
    await send(api.url, { method: 'POST', path: '/api/audiences/preview', headers: json({ 'x-api-key': other }), body: PREVIEW });
    const log = JSON.stringify(api.server.requestLog.recent(200));
    expect(api.server.requestLog.recent(200).length).toBeGreaterThanOrEqual(5);
    for (const key of [api.key, other]) {
      expect(log).not.toContain(key);
      expect(log).not.toContain(key.slice(4));
      expect(log).not.toContain(key.slice(8, 30));
    }
  });

  it('no answer echoes the key back', async () => {
    const res = await send(api.url, {
      method: 'POST',
      path: `/api/${api.key}`,
      headers: { 'content-type': 'application/json', 'x-api-key': api.key.slice(0, -1) + 'x' },
      body: PREVIEW,
    });
    expect(res.status).toBe(404);
    // The 404 names the path it was asked for (the caller's own text), but a wrong key is never echoed.
    expect(res.body).not.toContain(api.key.slice(0, -1) + 'x');
  });
});
