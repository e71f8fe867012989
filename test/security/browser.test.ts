// Promise 1 in a real browser: a web page the user opens must not reach the data, even when the
// page's author knows a valid key. A headless Chromium (test/support/browser.ts) loads attacker
// pages from a second server on another loopback port and from a fake name that resolves to
// 127.0.0.1 (DNS rebinding); the API records what it saw, the page records what it could read.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountBrowserUi } from '../../src/server/uiBrowserMode';
import { envelopeProblem, startSecurityApi, type SecurityApi } from './support';
import { launchChromium } from '../support/browser';

const ATTACKER_NAME = 'attacker.test';

let api: SecurityApi;
let attacker: Server;
let attackerPort: number;
let browser: Browser;
/** More attacker pages, added by tests. */
let extraPages: Record<string, string>;

/** The attacker's pages. `api` and `key` are baked in: assume the attacker knows a valid key. */
function attackerPages(apiUrl: string, key: string): Record<string, string> {
  const body = JSON.stringify({ state: 'CA', limit: 5 });
  const fetchScript = `
    const api = ${JSON.stringify(apiUrl)}, key = ${JSON.stringify(key)}, body = ${JSON.stringify(body)};
    const attempts = {
      getHealth: () => fetch(api + '/api/health'),
      postJsonWithKey: () => fetch(api + '/api/audiences/search', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body }),
      postTextPlain: () => fetch(api + '/api/audiences/search', { method: 'POST', headers: { 'content-type': 'text/plain' }, body }),
      noCorsPostWithKey: () => fetch(api + '/api/audiences/search', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'application/json', 'x-api-key': key }, body }),
      noCorsTextPlain: () => fetch(api + '/api/audiences/preview', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }),
      noCorsGetHealth: () => fetch(api + '/api/health', { mode: 'no-cors' }),
      xhrWithKey: () => new Promise((resolve, reject) => {
        const x = new XMLHttpRequest();
        x.open('POST', api + '/api/audiences/preview');
        x.setRequestHeader('content-type', 'application/json');
        x.setRequestHeader('x-api-key', key);
        x.onload = () => resolve({ type: 'xhr', status: x.status, text: async () => x.responseText });
        x.onerror = () => reject(new Error('xhr error'));
        x.send(body);
      }),
    };
    (async () => {
      const results = {};
      for (const [name, attempt] of Object.entries(attempts)) {
        try {
          const r = await attempt();
          results[name] = { read: true, type: r.type, status: r.status, text: await r.text() };
        } catch (e) {
          results[name] = { read: false, error: String(e) };
        }
      }
      results.beacon = { queued: navigator.sendBeacon(api + '/api/audiences/preview', new Blob([body], { type: 'text/plain' })) };
      window.__results = results;
    })();`;
  const form = (enctype: string, fields: string) => `<!doctype html><body>
    <form id="f" method="POST" action="${apiUrl}/api/audiences/search" enctype="${enctype}">${fields}</form>
    <script>document.getElementById('f').submit();</script></body>`;
  return {
    '/fetch.html': `<!doctype html><title>cute cats</title><script>${fetchScript}</script>`,
    // The classic trick to post JSON from a form: text/plain, with the JSON split across name=value.
    '/form-text.html': form('text/plain', `<input type="hidden" name='{"state":"CA","limit":5,"x":"' value='"}'>`),
    '/form-urlencoded.html': form(
      'application/x-www-form-urlencoded',
      `<input type="hidden" name="state" value="CA"><input type="hidden" name="x-api-key" value="${key}">`,
    ),
    '/form-multipart.html': form('multipart/form-data', `<input type="hidden" name="state" value="CA">`),
  };
}

beforeAll(async () => {
  api = await startSecurityApi(inject('datasetPath'), { record: true });
  extraPages = {};
  attacker = createServer((req, res) => {
    const host = req.headers.host ?? '';
    const pages = { ...attackerPages(api.url, api.key), ...extraPages };
    const page = pages[(req.url ?? '/').split('?')[0]!];
    if (!page || !host) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
  browser = await launchChromium([
    `--host-resolver-rules=MAP ${ATTACKER_NAME} 127.0.0.1`,
    // Chromium's Private Network Access would already stop a page it counts as public from
    // reaching 127.0.0.1; Firefox and Safari have no such check. Turn it off so that what is
    // tested is the server's own defence, not the browser's.
    '--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests',
  ]);
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  await api?.close();
});

async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    return await run(page);
  } finally {
    await context.close();
  }
}

type Attempt = { read: true; type: string; status: number; text: string } | { read: false; error: string } | { queued: boolean };

async function runFetchPage(pageUrl: string): Promise<Record<string, Attempt>> {
  return withPage(async (page) => {
    await page.goto(pageUrl);
    await page.waitForFunction(() => (globalThis as unknown as { __results?: unknown }).__results, undefined, { timeout: 15_000 });
    return page.evaluate(() => (globalThis as unknown as { __results: Record<string, Attempt> }).__results);
  });
}

/** Nothing a page read may hold a record or a field of one. */
function expectNothingRead(results: Record<string, Attempt>) {
  for (const [name, r] of Object.entries(results)) {
    if ('queued' in r) continue;
    if (r.read) {
      // Only opaque answers (no-cors): status 0, no body, nothing for the page to look at.
      expect(r.type, name).toBe('opaque');
      expect(r.status, name).toBe(0);
      expect(r.text, name).toBe('');
    } else {
      expect(r.error, name).toMatch(/Failed to fetch|xhr error|TypeError/);
    }
  }
}

function seenFrom(origin: string) {
  return api.seen.filter((s) => s.origin === origin);
}

describe('a page on another local origin (http://127.0.0.1:<other port>)', () => {
  it('reads nothing with fetch or XHR, with or without a valid key; the server refused every request by Origin', async () => {
    const origin = `http://127.0.0.1:${attackerPort}`;
    const before = api.seen.length;
    const results = await runFetchPage(`${origin}/fetch.html`);
    expectNothingRead(results);
    await new Promise((r) => setTimeout(r, 300)); // the beacon is sent after the page moved on
    const seen = api.seen.slice(before);
    console.info(
      'server saw (cross-origin page):',
      JSON.stringify(
        seen.map((s) => [
          s.method,
          s.url,
          s.origin ?? 'no Origin',
          s.contentType ?? '-',
          s.secFetchSite ?? '-',
          s.hasKey ? 'key' : 'no key',
          s.status,
        ]),
      ),
    );
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      // no-cors GETs carry no Origin; the browser still marks them same-site, which is refused too.
      if (s.origin === undefined) expect([s.method, s.secFetchSite]).toEqual(['GET', 'same-site']);
      else expect(s.origin).toBe(origin);
      expect(s.status).toBe(403);
      expect(s.body).not.toContain('"results"');
      expect(envelopeProblem(s.status, s.body)).toBeNull();
    }
    // The fetches with a key needed a preflight; it was refused, so the POST itself never went out.
    const preflights = seen.filter((s) => s.method === 'OPTIONS');
    expect(preflights.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.method === 'POST' && s.hasKey)).toEqual([]);
    expect(seenFrom(origin).every((s) => !s.body.includes('"total"'))).toBe(true);
  });

  it.each([
    ['text/plain (JSON smuggled in a field name)', '/form-text.html', 'text/plain'],
    ['urlencoded, with the key as a field', '/form-urlencoded.html', 'application/x-www-form-urlencoded'],
    ['multipart', '/form-multipart.html', 'multipart/form-data'],
  ])('an auto-submitting %s form post gets 403 and no data', async (_label, path, type) => {
    const origin = `http://127.0.0.1:${attackerPort}`;
    const before = api.seen.length;
    const shown = await withPage(async (page) => {
      const answer = page.waitForResponse((r) => r.url().startsWith(api.url + '/'), { timeout: 15_000 });
      await page.goto(`${origin}${path}`);
      const response = await answer;
      await page.waitForLoadState();
      return { status: response.status(), text: await response.text(), url: page.url() };
    });
    const seen = api.seen.slice(before).filter((s) => s.method === 'POST');
    console.info(
      `server saw (${type} form):`,
      JSON.stringify(seen.map((s) => [s.method, s.url, s.contentType, s.origin, s.secFetchSite, s.status])),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.contentType).toContain(type);
    expect(seen[0]!.origin).toBe(origin);
    expect([403, 415]).toContain(seen[0]!.status);
    // What the browser window shows is the refusal, never records; and the attacker's page cannot
    // read this document anyway (it is on the API's origin now).
    expect(shown.status).toBe(seen[0]!.status);
    expect(envelopeProblem(shown.status, shown.text)).toBeNull();
    expect(shown.text).not.toContain('"results"');
  });
});

describe('a page on another site (http://attacker.test:<other port>)', () => {
  it('reads nothing; the server saw Sec-Fetch-Site cross-site and a foreign Origin, and refused all', async () => {
    const origin = `http://${ATTACKER_NAME}:${attackerPort}`;
    const before = api.seen.length;
    expectNothingRead(await runFetchPage(`${origin}/fetch.html`));
    const seen = api.seen.slice(before).filter((s) => s.origin === origin);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(s.status).toBe(403);
      expect(s.secFetchSite).toBe('cross-site');
    }
  });
});

describe('DNS rebinding: a page whose own origin is http://attacker.test:<api port>', () => {
  it("loading the API port under the attacker's name gets 403 for the page itself", async () => {
    const before = api.seen.length;
    const status = await withPage(async (page) => (await page.goto(`http://${ATTACKER_NAME}:${api.port}/`))?.status());
    expect(status).toBe(403);
    expect(api.seen.slice(before).map((s) => s.host)).toContain(`${ATTACKER_NAME}:${api.port}`);
  });

  it('same-origin fetches after the name rebinds to 127.0.0.1 get 403 and no data, key or not', async () => {
    // The first answer for attacker.test came from the attacker's server (played here by
    // page.route for the document only); every later request goes to 127.0.0.1:<api port>.
    const pageUrl = `http://${ATTACKER_NAME}:${api.port}/`;
    const key = api.key;
    const script = `
      (async () => {
        const body = JSON.stringify({ state: 'CA', limit: 5 });
        const tries = {
          health: () => fetch('/api/health'),
          openapi: () => fetch('/api/openapi.json'),
          searchWithKey: () => fetch('/api/audiences/search', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ${JSON.stringify(key)} }, body }),
          previewWithKey: () => fetch('/api/audiences/preview', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': ${JSON.stringify(key)} }, body }),
        };
        const out = {};
        for (const [name, t] of Object.entries(tries)) {
          try { const r = await t(); out[name] = { status: r.status, text: await r.text() }; }
          catch (e) { out[name] = { status: -1, text: String(e) }; }
        }
        window.__results = out;
      })();`;
    const before = api.seen.length;
    const results = await withPage(async (page) => {
      await page.route(pageUrl, (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: `<!doctype html><script>${script}</script>` }),
      );
      await page.goto(pageUrl);
      await page.waitForFunction(() => (globalThis as unknown as { __results?: unknown }).__results, undefined, { timeout: 15_000 });
      return page.evaluate(() => (globalThis as unknown as { __results: Record<string, { status: number; text: string }> }).__results);
    });
    const seen = api.seen.slice(before);
    console.info('server saw (rebinding):', JSON.stringify(seen.map((s) => [s.method, s.url, s.host, s.origin ?? '-', s.status])));
    // Same origin for the browser, so the page can read the answers: they are all refusals.
    for (const [name, r] of Object.entries(results)) {
      expect(r.status, name + ' ' + r.text).toBe(403);
      expect(envelopeProblem(r.status, r.text), name).toBeNull();
      expect(r.text, name).not.toMatch(/"results"|"records"|"paths"/);
    }
    expect(seen.length).toBe(Object.keys(results).length);
    for (const s of seen) expect(s.host).toBe(`${ATTACKER_NAME}:${api.port}`);
    // The GETs carried no Origin at all: the Host check alone stopped them.
    expect(seen.filter((s) => s.method === 'GET').every((s) => s.origin === undefined && s.status === 403)).toBe(true);
  });
});

describe('browser mode (/ui/ on the same port): the page token and the Origin rule', () => {
  let ui: SecurityApi;
  let uiUrl: string;
  let rendererDir: string;

  beforeAll(async () => {
    // A stand-in renderer: a page whose script (CSP allows only 'self' scripts) calls one rpc.
    rendererDir = mkdtempSync(join(tmpdir(), 'audience-desk-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><script src="./app.js"></script>');
    writeFileSync(
      join(rendererDir, 'app.js'),
      `const token = new URLSearchParams(location.search).get('token');
       fetch('/ui/rpc/keys/list', { method: 'POST', headers: { 'content-type': 'application/json', 'X-UI-TOKEN': token }, body: '{}' })
         .then(async (r) => (globalThis.__results = { status: r.status, text: await r.text() }), (e) => (globalThis.__results = { status: -1, text: String(e) }));`,
    );
    let mount: Awaited<ReturnType<typeof mountBrowserUi>> | undefined;
    ui = await startSecurityApi(inject('datasetPath'), {
      record: true,
      beforeListen: async (server, core) => void (mount = await mountBrowserUi(core, server, rendererDir)),
    });
    uiUrl = mount!.url()!;
    expect(uiUrl).toContain('/ui/?token=');
  });
  afterAll(async () => {
    await ui?.close();
    rmSync(rendererDir, { recursive: true, force: true });
  });

  it('the real page, opened at the printed address, works in the browser (same origin, token header)', async () => {
    const result = await withPage(async (page) => {
      await page.goto(uiUrl);
      await page.waitForFunction(() => (globalThis as unknown as { __results?: unknown }).__results, undefined, { timeout: 15_000 });
      return page.evaluate(() => (globalThis as unknown as { __results: { status: number; text: string } }).__results);
    });
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text).ok).toBe(true);
  });

  it('a page on another origin cannot create a key or read anything through /ui/rpc, with fetch or a form', async () => {
    const origin = `http://127.0.0.1:${attackerPort}`;
    const keysBefore = ui.core.keys.list().length;
    extraPages['/ui-fetch.html'] = `<!doctype html><script>
      const base = ${JSON.stringify(ui.url)};
      const body = JSON.stringify({ name: 'planted by a web page' });
      const tries = {
        rpcWithGuessedToken: () => fetch(base + '/ui/rpc/keys/create', { method: 'POST', headers: { 'content-type': 'application/json', 'x-ui-token': 'guess' }, body }),
        rpcNoCors: () => fetch(base + '/ui/rpc/keys/create', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }),
        pageNoCors: () => fetch(base + '/ui/', { mode: 'no-cors' }),
        pageCors: () => fetch(base + '/ui/?token=guess'),
      };
      (async () => {
        const results = {};
        for (const [name, t] of Object.entries(tries)) {
          try { const r = await t(); results[name] = { read: true, type: r.type, status: r.status, text: await r.text() }; }
          catch (e) { results[name] = { read: false, error: String(e) }; }
        }
        window.__results = results;
      })();</script>`;
    extraPages['/ui-form.html'] =
      `<!doctype html><form id="f" method="POST" action="${ui.url}/ui/rpc/keys/create" enctype="text/plain"><input type="hidden" name='{"name":"planted","x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`;
    const before = ui.seen.length;
    expectNothingRead(await runFetchPage(`${origin}/ui-fetch.html`));
    const formStatus = await withPage(async (page) => {
      const answer = page.waitForResponse((r) => r.url().startsWith(ui.url + '/'), { timeout: 15_000 });
      await page.goto(`${origin}/ui-form.html`);
      return (await answer).status();
    });
    const seen = ui.seen.slice(before);
    console.info(
      'server saw (browser mode, foreign page):',
      JSON.stringify(seen.map((s) => [s.method, s.url, s.origin ?? 'no Origin', s.secFetchSite ?? '-', s.status])),
    );
    expect(formStatus).toBe(403);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(s.status).toBe(403);
    expect(ui.core.keys.list().length).toBe(keysBefore);
  });
});
