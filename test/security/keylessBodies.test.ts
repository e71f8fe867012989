// Issue 39: a request without a valid key (or UI token) never has its body read, and a flood of them,
// each announcing a body it then sends one byte at a time, cannot take the in-flight cap from callers
// with a key. A real Core on the shared test dataset, the real server on port 0 with browser mode
// mounted on a stand-in renderer, and raw loopback sockets for the keyless side.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { mountBrowserUi } from '../../src/server/uiBrowserMode';
import { RPC_TOKEN_HEADER } from '../../src/shared/rpcPaths';
import { envelopeProblem, send, startSecurityApi, type SecurityApi, type StartOptions } from './support';

/** Under the 256 KiB body limit: a server that reads bodies would wait for all of it. */
const ANNOUNCED = 200_000;
const JSON_BODY = { 'content-type': 'application/json' };
const PREVIEW = JSON.stringify({ state: 'CA', limit: 25 });

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

interface Started {
  api: SecurityApi;
  uiToken: string;
}

/** The real server with browser mode mounted (a one-file stand-in renderer), closed after the file. */
async function start(options: StartOptions = {}): Promise<Started> {
  const rendererDir = mkdtempSync(join(tmpdir(), 'audience-desk-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>stand-in</title>');
  let uiUrl: () => string | null = () => null;
  const api = await startSecurityApi(inject('datasetPath'), {
    ...options,
    beforeListen: async (server, core) => {
      await options.beforeListen?.(server, core);
      uiUrl = (await mountBrowserUi(core, server, rendererDir)).url;
    },
  });
  cleanups.push(async () => {
    await api.close();
    rmSync(rendererDir, { recursive: true, force: true });
  });
  return { api, uiToken: new URL(uiUrl()!).searchParams.get('token')! };
}

/** Fails with a clear message instead of hanging until the test's own timeout. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Announced {
  socket: Socket;
  /** The first answer once its head and body are in; status 0 if the socket closed before one came. */
  answer: Promise<RawAnswer>;
  /** Resolves on close: true when the server ended the connection, false when this test destroyed it. */
  closed: Promise<boolean>;
  /** Body bytes this side has written so far. */
  bodyBytesSent(): number;
  /** One more body byte, as a slow client sends it. */
  trickle(): void;
  destroy(): void;
}

/** Opens a socket and sends only the head of a request that announces ANNOUNCED body bytes. */
function announce(port: number, method: string, path: string, headers: Record<string, string> = {}): Announced {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  let sent = 0;
  let destroyedHere = false;
  let received = Buffer.alloc(0);
  const answer = new Promise<RawAnswer>((resolve) => {
    const tryParse = (): void => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = received.toString('latin1', 0, end).split('\r\n');
      const head: Record<string, string> = {};
      for (const line of lines) head[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const length = Number(head['content-length'] ?? 0);
      if (received.length - end - 4 < length) return;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1] ?? 0);
      resolve({ status, headers: head, body: received.toString('utf8', end + 4, end + 4 + length) });
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      tryParse();
    });
    socket.once('close', () => resolve({ status: 0, headers: {}, body: '' }));
  });
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(!destroyedHere)));
  const lines = Object.entries({ Host: `127.0.0.1:${port}`, ...headers, 'Content-Length': String(ANNOUNCED) });
  socket.write(`${method} ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
  return {
    socket,
    answer,
    closed,
    bodyBytesSent: () => sent,
    trickle() {
      if (socket.destroyed || !socket.writable || sent >= ANNOUNCED) return;
      socket.write('1');
      sent += 1;
    },
    destroy() {
      if (!socket.destroyed) destroyedHere = true;
      socket.destroy();
    },
  };
}

describe('a request without a valid key or UI token, announcing a body', () => {
  it('is answered before any of its body is sent, with Connection: close, and the server closes the socket', async () => {
    const { api, uiToken } = await start();
    const badKey = { ...JSON_BODY, 'X-API-KEY': `adk_${'A'.repeat(43)}` };
    const cases: Array<[method: string, path: string, headers: Record<string, string>, status: number]> = [
      ['PUT', '/api/health', JSON_BODY, 405],
      ['PATCH', '/api/health', JSON_BODY, 405],
      ['OPTIONS', '/api/health', JSON_BODY, 405],
      ['DELETE', '/api/openapi.json', JSON_BODY, 405],
      ['PUT', '/api/fields', JSON_BODY, 405],
      ['PUT', '/api/audiences/preview', JSON_BODY, 405],
      ['POST', '/api/nope', JSON_BODY, 404],
      ['POST', '/nope', JSON_BODY, 404],
      ['POST', '/api/audiences/preview', JSON_BODY, 401],
      ['POST', '/api/audiences/search', badKey, 401],
      ['POST', '/api/audiences/search', { 'Content-Type': 'text/plain' }, 401],
      ['GET', '/api/health', JSON_BODY, 200],
      ['POST', '/ui/rpc/keys/list', { ...JSON_BODY, [RPC_TOKEN_HEADER]: 'guess' }, 401],
      ['POST', '/ui/rpc/keys/list', JSON_BODY, 401],
      // A valid token on a method the UI does not take: still nothing to read.
      ['PUT', '/ui/rpc/keys/list', { ...JSON_BODY, [RPC_TOKEN_HEADER]: uiToken }, 404],
    ];
    const exchanges = cases.map(([method, path, headers]) => announce(api.port, method, path, headers));
    try {
      const answers = await within(Promise.all(exchanges.map((x) => x.answer)), 5_000, 'answers to requests whose body was never sent');
      const byServer = await within(Promise.all(exchanges.map((x) => x.closed)), 5_000, 'the server closing those sockets');
      cases.forEach(([method, path, , status], i) => {
        const what = `${method} ${path}`;
        expect(answers[i]!.status, what).toBe(status);
        expect(answers[i]!.headers.connection, what).toBe('close');
        if (status >= 400 && !path.startsWith('/ui/')) expect(envelopeProblem(status, answers[i]!.body), what).toBeNull();
        expect(byServer[i], `${what}: closed by the server`).toBe(true);
        expect(exchanges[i]!.bodyBytesSent(), what).toBe(0);
      });
    } finally {
      for (const x of exchanges) x.destroy();
    }
  });
});

describe('a flood of keyless slow bodies', () => {
  it('does not starve keyed clients: every keyed request and UI call made meanwhile succeeds', async () => {
    const { api, uiToken } = await start();
    const SOCKETS = 300;
    // The probe goes on until the server has seen this many waves of the flood (and at most 200 rounds).
    const WAVES = 4;
    const MAX_ROUNDS = 20;
    const flood = [
      ['PUT', '/api/health'],
      ['POST', '/api/nope'],
    ] as const;
    let seen = 0;
    const seenFirstWave = new Promise<void>((resolve) =>
      api.server.app.server.on('request', (req: { url?: string }) => {
        if ((req.url === '/api/health' || req.url === '/api/nope') && ++seen >= SOCKETS) resolve();
      }),
    );
    let stopped = false;
    const live = new Set<Announced>();
    const awaitingClose = new Set<Announced>();
    const statuses: Record<number, number> = {};
    let answered = 0;
    let closedByServer = 0;
    // Every 250 ms each open attacker sends one more body byte; one the server dropped comes back on
    // the next tick (at most MAX_ROUNDS times, and not once the probe is done).
    let tick!: () => void;
    let nextTick = new Promise<void>((resolve) => (tick = resolve));
    const ticker = setInterval(() => {
      live.forEach((x) => x.trickle());
      tick();
      nextTick = new Promise<void>((resolve) => (tick = resolve));
    }, 250);
    const attacker = async (i: number): Promise<void> => {
      const [method, path] = flood[i % flood.length]!;
      for (let round = 0; round < MAX_ROUNDS && !stopped; round++) {
        const x = announce(api.port, method, path, JSON_BODY);
        live.add(x);
        const answer = await x.answer;
        if (answer.status) {
          answered++;
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          // Answered: the server closes it next; the clean-up below leaves it to do so.
          awaitingClose.add(x);
        }
        if (await x.closed) closedByServer++;
        awaitingClose.delete(x);
        live.delete(x);
        await nextTick;
      }
    };
    const attackers = Array.from({ length: SOCKETS }, (_, i) => attacker(i));

    const results: Array<{ what: string; status: number }> = [];
    const probing = { from: 0 };
    try {
      await within(seenFirstWave, 15_000, `the server seeing ${SOCKETS} keyless requests`);
      probing.from = seen;
      for (let i = 0; i < 200 && (i < 10 || seen < WAVES * SOCKETS); i++) {
        const preview = await send(api.url, {
          method: 'POST',
          path: '/api/audiences/preview',
          headers: { ...JSON_BODY, 'x-api-key': api.key },
          body: PREVIEW,
          timeoutMs: 10_000,
        });
        results.push({ what: 'preview', status: preview.status });
        const fields = await send(api.url, { path: '/api/fields', headers: { 'x-api-key': api.key }, timeoutMs: 10_000 });
        results.push({ what: 'fields', status: fields.status });
        const rpc = await send(api.url, {
          method: 'POST',
          path: '/ui/rpc/keys/list',
          headers: { ...JSON_BODY, [RPC_TOKEN_HEADER]: uiToken },
          body: '{}',
          timeoutMs: 10_000,
        });
        results.push({ what: 'ui rpc', status: rpc.status });
      }
    } finally {
      stopped = true;
      clearInterval(ticker);
      tick();
      // Sockets still sending are dropped; answered ones are the server's to close.
      live.forEach((x) => awaitingClose.has(x) || x.destroy());
      await Promise.all(attackers);
    }
    const notOk = results.filter((r) => r.status !== 200);
    console.info(
      `keyless: ${SOCKETS} sockets sending keyless slow bodies (PUT /api/health, POST /api/nope, ${ANNOUNCED} bytes announced, a byte every 250 ms, ` +
        `back when dropped): ${seen} requests seen (${seen - probing.from} while probing), ${answered} answered ${JSON.stringify(statuses)}, ` +
        `${closedByServer} closed by the server; keyed and UI requests meanwhile: ${results.length}, ${results.length - notOk.length} answered 200`,
    );
    expect(notOk).toEqual([]);
    // The probe really ran through the flood: the server saw the later waves while it went on.
    expect(seen).toBeGreaterThanOrEqual(WAVES * SOCKETS);
    // Every keyless request got its 404/405 at once (never 503: it held no slot) and its socket closed.
    expect(answered).toBeGreaterThanOrEqual(WAVES * SOCKETS);
    expect(Object.keys(statuses).sort()).toEqual(['404', '405']);
    expect(closedByServer).toBe(answered);
  }, 60_000);
});

/** A key-free route whose handler waits for the test: keyless requests that stay in flight. */
function holdRoute(): { options: StartOptions; entered: (n: number) => Promise<void>; release: () => void } {
  let count = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    options: {
      beforeListen: (server) => {
        server.app.get('/api/test/hold', async (_request, reply) => {
          count++;
          for (const w of waiters.filter((w) => count >= w.n)) w.resolve();
          await gate;
          reply.type('application/json; charset=utf-8').send('{"held":true}');
        });
      },
    },
    entered: (n) => (count >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    release: () => release(),
  };
}

describe('the keyless in-flight budget', () => {
  it('is separate from and smaller than the keyed cap: when it is full keyless requests get 503 and keyed ones 200', async () => {
    const hold = holdRoute();
    const { api } = await start({ ...hold.options, server: { maxInFlight: 4, maxInFlightKeyless: 2 } });
    const held = [send(api.url, { path: '/api/test/hold' }), send(api.url, { path: '/api/test/hold' })];
    try {
      await within(hold.entered(2), 5_000, 'two keyless requests in flight');
      const health = await send(api.url, { path: '/api/health' });
      expect(health.status).toBe(503);
      expect(health.headers['retry-after']).toBe('1');
      expect(envelopeProblem(503, health.body)).toBeNull();
      // The whole keyed cap is still there: four keyed requests at once.
      const keyed = await Promise.all(
        Array.from({ length: 4 }, () =>
          send(api.url, {
            method: 'POST',
            path: '/api/audiences/preview',
            headers: { ...JSON_BODY, 'x-api-key': api.key },
            body: PREVIEW,
          }),
        ),
      );
      expect(keyed.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    } finally {
      hold.release();
      await Promise.allSettled(held);
    }
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await send(api.url, { path: '/api/health' })).status).toBe(200);
  });

  it('holds a keyless request only for a short time: past it the connection is closed and the slot is free again', async () => {
    const hold = holdRoute();
    const { api } = await start({ ...hold.options, server: { maxInFlightKeyless: 1, keylessTimeoutMs: 300 } });
    const socket = connect({ host: '127.0.0.1', port: api.port });
    socket.on('error', () => undefined);
    const closed = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.once('close', () => resolve(text));
    });
    socket.write(`GET /api/test/hold HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\n\r\n`);
    try {
      await within(hold.entered(1), 5_000, 'the keyless request in flight');
      expect(await within(closed, 5_000, 'the server closing a keyless request past its time')).toBe('');
      expect((await send(api.url, { path: '/api/health' })).status).toBe(200);
    } finally {
      hold.release();
      socket.destroy();
    }
  });
});
