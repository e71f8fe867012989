// Issue 33, the HTTP side: what an outside tester found at the edges of the protocol, over real
// sockets against the real server on the shared test dataset. A request without Host, a path the
// router cannot decode, `Expect: 100-continue` on a request that will be refused, a body in another
// charset or compressed, and a body that names a key twice: each answered in the one envelope, with
// the API's headers, and refused before anything is read that should not be.
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApi, type ApiHarness } from '../support/apiHarness';
import { envelopeProblem, parseRaw, sendRaw } from '../security/support';

let api: ApiHarness;
let port: number;
beforeAll(async () => {
  api = await startApi(inject('datasetPath'));
  port = api.server.listeningPort;
});
afterAll(async () => api.close());

const PREVIEW = JSON.stringify({ state: 'CA', limit: 0 });

/** The headers of a raw answer as a lower-cased map. */
function headersOf(head: string): Record<string, string> {
  return Object.fromEntries(
    head
      .split('\r\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

/** One raw request; its status, headers and body, each checked to be the API's envelope when it is an error. */
async function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string; text: string }> {
  const { text } = await sendRaw(port, request);
  const { status, headers, body } = parseRaw(text);
  return { status, headers: headersOf(headers), body, text };
}

function expectApiHeaders(headers: Record<string, string>): void {
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('a request without Host (defect 3)', () => {
  it('HTTP/1.1: 400 invalid_request in the envelope with the API headers, not Node’s bare 400; HTTP/1.0: 403', async () => {
    const answer = await raw('GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(envelopeProblem(answer.status, answer.body)).toBeNull();
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/Host/) });
    expectApiHeaders(answer.headers);
    // Before the key is looked at, on a keyed route too.
    const keyed = await raw(
      `POST /api/audiences/preview HTTP/1.1\r\nContent-Type: application/json\r\nX-API-KEY: ${api.key}\r\n` +
        `Content-Length: ${PREVIEW.length}\r\nConnection: close\r\n\r\n${PREVIEW}`,
    );
    expect(keyed.status).toBe(400);
    expect(envelopeProblem(keyed.status, keyed.body)).toBeNull();
    expect(keyed.body).not.toContain('"total"');
    // HTTP/1.0 has no Host requirement, but the server still needs ours: 403, in the envelope as well.
    for (const path of ['/api/health', '/api/audiences/preview']) {
      const answer = await raw(`GET ${path} HTTP/1.0\r\n\r\n`);
      expect(answer.status, path).toBe(403);
      expect(envelopeProblem(answer.status, answer.body)).toBeNull();
      expectApiHeaders(answer.headers);
    }
  });
});

describe('errors of the router (defect 4)', () => {
  it.each(['/api/%zz', '/api/%ff', '/api/audiences/%E0%A4%A'])(
    '%s: the envelope with Cache-Control: no-store and nosniff',
    async (path) => {
      const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      expect(answer.status).toBe(400);
      expect(envelopeProblem(answer.status, answer.body)).toBeNull();
      expectApiHeaders(answer.headers);
    },
  );

  it('an expectation other than 100-continue is ignored, not answered with Node’s bare 417', async () => {
    const answer = await raw(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nExpect: something-else\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
    expectApiHeaders(answer.headers);
  });
});

describe('Expect: 100-continue (defect 7)', () => {
  const head = (headers: string, length = PREVIEW.length) =>
    `POST /api/audiences/preview HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Content-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it('a request that will be refused (401, 415, 413) hears no 100 Continue; one that passes hears it, then is answered', async () => {
    const refused: Array<[string, number, string]> = [
      ['no key', 401, head('Content-Type: application/json\r\n')],
      ['a wrong key', 401, head('Content-Type: application/json\r\nX-API-KEY: adk_nope\r\n')],
      ['another media type', 415, head(`Content-Type: text/plain\r\nX-API-KEY: ${api.key}\r\n`)],
      ['another charset', 415, head(`Content-Type: application/json; charset=latin1\r\nX-API-KEY: ${api.key}\r\n`)],
      ['a body over the limit', 413, head(`Content-Type: application/json\r\nX-API-KEY: ${api.key}\r\n`, 300 * 1024)],
    ];
    for (const [label, status, request] of refused) {
      // The body is never sent: a client that waits for 100 gets the refusal at once instead.
      const { text, closedByServer } = await sendRaw(port, request, 3_000);
      expect(text, label).not.toContain('100 Continue');
      const { status: got, body } = parseRaw(text);
      expect(got, label).toBe(status);
      expect(envelopeProblem(got, body), label).toBeNull();
      // Its body may still be on the way: the connection is not reused.
      expect(closedByServer, label).toBe(true);
    }

    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.setEncoding('latin1');
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (chunk: string) => (text += chunk));
    const interim = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 100 Continue in ${JSON.stringify(text)}`)), 3_000);
      const check = () => {
        if (!/^HTTP\/1\.1 100 Continue\r\n\r\n/.test(text)) return;
        clearTimeout(timer);
        socket.off('data', check);
        resolve();
      };
      socket.on('data', check);
    });
    socket.write(head(`Content-Type: application/json\r\nX-API-KEY: ${api.key}\r\nConnection: close\r\n`));
    await interim;
    socket.write(PREVIEW);
    await closed;
    const final = parseRaw(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(final.status).toBe(200);
    expect(JSON.parse(final.body)).toMatchObject({ total: expect.any(Number), results: [] });
  });
});

describe('charsets and content encodings (defect 8)', () => {
  it('refuses a charset other than UTF-8 with 415 unsupported_media_type saying so, and still takes UTF-8 however it is spelt', async () => {
    for (const type of [
      'application/json; charset=latin1',
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
      'application/json; charset="windows-1252"',
      'application/json; charset=',
    ]) {
      const res = await api.post('/api/audiences/preview', PREVIEW, { 'content-type': type });
      expect(res.status, type).toBe(415);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe('unsupported_media_type');
      expect(body.error.message).toMatch(/UTF-8/);
    }
    for (const type of [
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json;charset="utf-8"',
      'application/json; charset=utf8',
    ])
      expect((await api.post('/api/audiences/preview', PREVIEW, { 'content-type': type })).status, type).toBe(200);
  });

  it('refuses any Content-Encoding but identity with 415 and Accept-Encoding: identity, whatever the bytes, after the key', async () => {
    for (const encoding of ['gzip', 'deflate', 'br', 'x-custom', 'identity, gzip']) {
      for (const bytes of [gzipSync(PREVIEW), Buffer.from(PREVIEW)]) {
        const answer = await raw(
          `POST /api/audiences/preview HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-API-KEY: ${api.key}\r\n` +
            `Content-Encoding: ${encoding}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n${bytes.toString('latin1')}`,
        );
        expect(answer.status, encoding).toBe(415);
        expect(envelopeProblem(answer.status, answer.body)).toBeNull();
        expect(JSON.parse(answer.body).error.message).toMatch(/Content-Encoding/);
        expect(answer.headers['accept-encoding']).toBe('identity');
      }
    }
    // `identity` is no coding at all.
    expect((await api.post('/api/audiences/preview', PREVIEW, { 'content-encoding': 'identity' })).status).toBe(200);
    // The key comes first: a keyless compressed body in another charset is 401.
    const keyless = await fetch(api.url + '/api/audiences/preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=latin1', 'content-encoding': 'gzip' },
      body: PREVIEW,
    });
    expect(keyless.status).toBe(401);
  });
});

describe('duplicate keys (defect 9)', () => {
  it.each([
    ['{"state":"CA","state":"TX"}', 'state', 'state'],
    ['{"state":"CA","limit":1,"limit":2}', 'limit', 'limit'],
    ['{"state":"CA","near":{"zip":"94110","miles":1,"miles":2}}', 'miles', 'near'],
    ['{"state":"CA","contact":{"phone":"callable","\\u0070hone":"callable"}}', 'phone', 'contact'],
    ['{"state":"CA","filters":[["GENDER",["F"]]],"sample":{"every":2},"sample":{"every":3}}', 'sample', 'sample'],
    ['{"state":"CA","filters":[["GENDER",[{"a":1,"a":2}]]]}', 'a', 'filters'],
  ])('refuses %s with 400 naming the key', async (body, key, field) => {
    const res = await api.post('/api/audiences/search', body);
    expect(res.status).toBe(400);
    const error = ((await res.json()) as any).error;
    expect(error).toMatchObject({ code: 'invalid_request', field });
    expect(error.message).toContain(`"${key}" twice`);
  });

  it('cuts a long duplicate key to 40 characters, and lets equal keys in different objects through', async () => {
    const key = 'k'.repeat(5_000);
    const res = await api.post('/api/audiences/preview', `{"state":"CA","${key}":1,"${key}":2}`);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(400);
    expect(JSON.parse(text).error.message).toContain(`"${'k'.repeat(40)}…"`);
    // Equal keys in different objects, and equal strings as values, are no duplicates.
    const body =
      '{"state":"CA","limit":0,"near":{"lat":34,"lon":-118,"miles":50},"contact":{"mail":"deliverable"},"filters":[["CITY",["STATE","state"]]]}';
    const passed = await api.post('/api/audiences/preview', body);
    expect(passed.status, await passed.clone().text()).toBe(200);
    // A key made of escapes, and a value that looks like a key, are not mistaken for anything else.
    expect((await api.post('/api/audiences/preview', '{"state":"CA","limit":0,"filters":[["CITY",["\\"state\\":"]]]}')).status).toBe(200);
  });
});
