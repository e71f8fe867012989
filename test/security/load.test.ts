// Promise 3: load and slow clients do not starve it. A runaway key is rate-limited while another
// key keeps getting 200s (autocannon in a child process, so the load generator does not share the
// server's event loop); a cap on requests in flight answers 503; hundreds of half-open sockets
// neither block real requests nor outlive the header timeout; a slow body is cut off at the
// request timeout; a query past its time budget answers 503 instead of freezing the server.
// The figures printed here (`load:` lines) are the ones recorded in SECURITY.md.
import { execFile } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { envelopeProblem, openSocket, send, sleep, startSecurityApi, type SecurityApi, type StartOptions } from './support';

const run = promisify(execFile);
const PREVIEW = JSON.stringify({ state: 'CA', limit: 25 });
const opened: SecurityApi[] = [];
afterAll(async () => {
  for (const api of opened) await api.close();
});

async function start(options: Parameters<typeof startSecurityApi>[1] = {}): Promise<SecurityApi> {
  const api = await startSecurityApi(inject('datasetPath'), options);
  opened.push(api);
  return api;
}

interface Cannon {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  byStatus: Record<string, number>;
  errors: number;
  timeouts: number;
}

/** autocannon as a separate process, bounded in time (`seconds`) and by its own timeout. */
async function cannon(
  url: string,
  key: string,
  connections: number,
  seconds: number,
  body = PREVIEW,
  path = '/api/audiences/preview',
): Promise<Cannon> {
  const { stdout } = await run(
    'autocannon',
    [
      '-j',
      '-n',
      '-c',
      String(connections),
      '-d',
      String(seconds),
      '-t',
      '5',
      '-m',
      'POST',
      '-H',
      'content-type=application/json',
      '-H',
      `x-api-key=${key}`,
      '-b',
      body,
      url + path,
    ],
    { timeout: (seconds + 20) * 1000, maxBuffer: 16 * 1024 * 1024 },
  );
  const r = JSON.parse(stdout);
  const byStatus: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) byStatus[code] = (v as { count: number }).count;
  return {
    requestsPerSecond: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    byStatus,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

/** Counts the requests with `key` that reach the server (their headers read), from now on. */
function arrivals(api: SecurityApi, key: string): () => number {
  let n = 0;
  api.server.app.server.on('request', (request: IncomingMessage) => {
    if (request.headers['x-api-key'] === key) n++;
  });
  return () => n;
}

/** Whether a promise has settled yet (without waiting for it, and without its rejection going unhandled). */
function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

/**
 * The requests holding an in-flight slot: counted by a preParsing hook added after the server's own,
 * which takes the slot (a request it refuses never reaches this one), and given back when the
 * answer's connection closes, as the server's slot is.
 */
function slotWatch(): { options: StartOptions; held: () => number; admitted: () => number } {
  let admitted = 0;
  let released = 0;
  return {
    options: {
      beforeListen: (server) => {
        server.app.addHook('preParsing', async (_request, reply) => {
          admitted++;
          reply.raw.once('close', () => released++);
        });
      },
    },
    held: () => admitted - released,
    admitted: () => admitted,
  };
}

/** How long to wait for something the test set going (a flood, requests to arrive) before failing. */
const UNDER_WAY = { timeout: 20_000, interval: 20 };

function latencies(ms: number[]): { p50: number; p99: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 10) / 10;
  return { p50: at(0.5), p99: at(0.99), max: Math.round(s.at(-1)! * 10) / 10 };
}

async function timedPreview(api: SecurityApi, key = api.key): Promise<{ status: number; ms: number; body: string; retryAfter?: string }> {
  const started = performance.now();
  const res = await send(api.url, {
    method: 'POST',
    path: '/api/audiences/preview',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: PREVIEW,
    timeoutMs: 5_000,
  });
  return {
    status: res.status,
    ms: performance.now() - started,
    body: res.body,
    retryAfter: res.headers['retry-after'] as string | undefined,
  };
}

describe('throughput (for the record)', () => {
  it('measures requests/s and p99 of preview and search under the default limits', async () => {
    const api = await start();
    const preview = await cannon(api.url, api.key, 10, 3);
    const search = await cannon(
      api.url,
      api.key,
      10,
      3,
      JSON.stringify({ state: 'CA', limit: 100, filters: [['GENDER', ['F']]] }),
      '/api/audiences/search',
    );
    console.info(
      `load: preview limit 25, 10 connections, 3 s: ${preview.requestsPerSecond} req/s, p50 ${preview.p50} ms, p99 ${preview.p99} ms, statuses ${JSON.stringify(preview.byStatus)}`,
    );
    console.info(
      `load: search limit 100 (full records), 10 connections, 3 s: ${search.requestsPerSecond} req/s, p50 ${search.p50} ms, p99 ${search.p99} ms, statuses ${JSON.stringify(search.byStatus)}`,
    );
    expect(preview.byStatus['200']).toBe(preview.total);
    expect(search.byStatus['200']).toBe(search.total);
    expect(preview.errors + preview.timeouts + search.errors + search.timeouts).toBe(0);
  }, 60_000);
});

describe('per-key rate limit under concurrent load', () => {
  it('limits one runaway key with 429 + Retry-After while another key keeps getting 200s', async () => {
    const limit = { perSecond: 100, burst: 100 };
    const seconds = 4;
    const api = await start({ server: { rateLimit: limit } });
    const calm = api.core.keys.create('calm client').key;
    const floodArrived = arrivals(api, api.key);
    const runaway = cannon(api.url, api.key, 30, seconds);
    const floodOver = settled(runaway);
    // The flood is on once more of its requests reached the server than its key's burst allows.
    await vi.waitFor(() => expect(floodArrived()).toBeGreaterThan(limit.burst), UNDER_WAY);
    // The calm client: one request, then a 25 ms pause (under 40/s, within its own budget), until the flood ends.
    const calmResults: Array<{ status: number; ms: number }> = [];
    while (!floodOver()) {
      calmResults.push(await timedPreview(api, calm));
      await sleep(25);
    }
    const flood = await runaway;
    const sample = await timedPreview(api);
    const calmLatency = latencies(calmResults.map((r) => r.ms));
    console.info(
      `load: runaway key, 30 connections, ${seconds} s, limit ${limit.perSecond}/s burst ${limit.burst}: ${flood.requestsPerSecond} req/s answered, ` +
        `statuses ${JSON.stringify(flood.byStatus)}, p99 ${flood.p99} ms; calm key meanwhile: ${calmResults.length} requests, ` +
        `all ${[...new Set(calmResults.map((r) => r.status))].join('/')}, p50 ${calmLatency.p50} ms, p99 ${calmLatency.p99} ms, max ${calmLatency.max} ms`,
    );
    expect(flood.byStatus['429'] ?? 0).toBeGreaterThan(flood.total / 2);
    // At most the burst plus the sustained rate over the run got through (with a second of slack).
    expect(flood.byStatus['200'] ?? 0).toBeLessThanOrEqual(limit.burst + limit.perSecond * (seconds + 1));
    expect(flood.errors + flood.timeouts).toBe(0);
    expect(calmResults.length).toBeGreaterThan(10);
    // Every one of them answered 200: the promise is "still served", not a latency (that is for bench/).
    expect(calmResults.map((r) => r.status)).toEqual(calmResults.map(() => 200));
    if (sample.status === 429) {
      expect(Number(sample.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(envelopeProblem(429, sample.body)).toBeNull();
    }
  }, 60_000);
});

describe('requests without a valid key', () => {
  it('share one limit: a flood of bad keys gets 429 while real keys, one made during the flood too, keep getting 200s', async () => {
    const limit = { perSecond: 20, burst: 20 };
    const seconds = 4;
    const api = await start({ server: { unauthenticatedLimit: limit } });
    // Well-formed but unknown: each would cost a key lookup if it were looked up.
    const badKey = `adk_${'A'.repeat(43)}`;
    const floodArrived = arrivals(api, badKey);
    const flood = cannon(api.url, badKey, 30, seconds);
    const floodOver = settled(flood);
    // The flood is on once more bad keys reached the server than the shared burst allows.
    await vi.waitFor(() => expect(floodArrived()).toBeGreaterThan(limit.burst), UNDER_WAY);
    const fresh = api.core.keys.create('made during the flood').key;
    const results: Array<{ status: number; ms: number }> = [];
    // Both real keys, then a 25 ms pause, until the flood ends.
    while (!floodOver()) {
      results.push(await timedPreview(api, api.key));
      results.push(await timedPreview(api, fresh));
      await sleep(25);
    }
    const bad = await flood;
    const latency = latencies(results.map((r) => r.ms));
    console.info(
      `load: bad-key flood, 30 connections, ${seconds} s, limit ${limit.perSecond}/s burst ${limit.burst}: ${bad.requestsPerSecond} req/s answered, ` +
        `statuses ${JSON.stringify(bad.byStatus)}; real keys meanwhile: ${results.length} requests, all ${[...new Set(results.map((r) => r.status))].join('/')}, ` +
        `p50 ${latency.p50} ms, p99 ${latency.p99} ms`,
    );
    expect(bad.byStatus['429'] ?? 0).toBeGreaterThan(bad.total / 2);
    // At most the burst plus the sustained rate over the run was looked up and answered 401 (a second of slack).
    expect(bad.byStatus['401'] ?? 0).toBeLessThanOrEqual(limit.burst + limit.perSecond * (seconds + 1));
    expect(bad.byStatus['200'] ?? 0).toBe(0);
    expect(results.length).toBeGreaterThan(10);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    // A bad key after the flood: still a clear answer (401 once tokens are back, or 429 with Retry-After).
    const after = await timedPreview(api, `adk_${'B'.repeat(43)}`);
    expect([401, 429]).toContain(after.status);
    if (after.status === 429) expect(Number(after.retryAfter)).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

/** A socket that sent complete headers (with a valid key) and only part of the body it announced. */
async function stalledBody(api: SecurityApi, key = api.key): Promise<Socket> {
  const socket = await openSocket(api.port);
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/audiences/preview HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nContent-Type: application/json\r\nX-API-KEY: ${key}\r\nContent-Length: 1000\r\n\r\n{"state":`,
  );
  return socket;
}

function closedWithin(socket: Socket, ms: number): Promise<number | null> {
  const started = performance.now();
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(0);
    const timer = setTimeout(() => resolve(null), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
  });
}

describe('a cap on work in flight', () => {
  it('answers 503 unavailable with Retry-After once maxInFlight requests are being worked on, and recovers', async () => {
    const slots = slotWatch();
    const api = await start({ ...slots.options, server: { maxInFlight: 4 } });
    const stalled = await Promise.all(Array.from({ length: 4 }, () => stalledBody(api)));
    // All four are being worked on (each holds a slot, waiting for the rest of its body).
    await vi.waitFor(() => expect(slots.held()).toBe(4), UNDER_WAY);
    const busy = await timedPreview(api);
    expect(busy.status).toBe(503);
    expect(busy.retryAfter).toBe('1');
    expect(envelopeProblem(503, busy.body)).toBeNull();
    expect(JSON.parse(busy.body).error.code).toBe('unavailable');
    expect(slots.admitted()).toBe(4);
    for (const s of stalled) s.destroy();
    // Their connections closed on the server's side, and their slots with them.
    await vi.waitFor(() => expect(slots.held()).toBe(0), UNDER_WAY);
    expect((await timedPreview(api)).status).toBe(200);
  });
});

describe('clients that stop reading their answers', () => {
  it('cannot hold the server: their key gets only its own slots, others are served, and their sockets are closed when nothing moves', async () => {
    const slots = slotWatch();
    const api = await start({
      ...slots.options,
      server: { maxInFlight: 8, maxInFlightPerKey: 4, idleSocketTimeoutMs: 1_000, keepAliveTimeoutMs: 1_000, timeoutCheckIntervalMs: 100 },
    });
    const arrived = arrivals(api, api.key);
    const calm = api.core.keys.create('calm client').key;
    // The server's side of each connection, by the client's port: a client that never reads would
    // not even notice its socket being closed.
    const serverSide = new Map<number, Socket>();
    api.server.app.server.on('connection', (socket: Socket) => serverSide.set(socket.remotePort!, socket));
    const body = JSON.stringify({ state: 'CA', limit: 1000 }); // an answer of several MB: more than the socket buffers hold
    const stuck: Socket[] = [];
    for (let i = 0; i < 6; i++) {
      const socket = await openSocket(api.port);
      socket.on('error', () => undefined);
      socket.pause(); // never reads
      socket.write(
        `POST /api/audiences/search HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nContent-Type: application/json\r\nX-API-KEY: ${api.key}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      stuck.push(socket);
    }
    // All six reached the server, and four of them were given the key's four slots (their answers then stick in the socket).
    await vi.waitFor(() => {
      expect(arrived()).toBe(6);
      expect(slots.admitted()).toBe(4);
    }, UNDER_WAY);
    const greedy = await timedPreview(api);
    const other = await timedPreview(api, calm);
    const started = performance.now();
    const closed = await Promise.all(stuck.map((s) => closedWithin(serverSide.get(s.localPort!)!, 5_000)));
    for (const s of stuck) s.destroy();
    const after = await timedPreview(api);
    console.info(
      `load: 6 non-reading clients on one key (answers of several MB each): that key got ${greedy.status} for a 7th request, another key ${other.status}; the server closed ${closed.filter((c) => c !== null).length}/6 stuck sockets within ${Math.round(performance.now() - started)} ms (idle-socket and keep-alive timeouts 1,000 ms); then the key got ${after.status}`,
    );
    expect(greedy.status).toBe(429);
    expect(envelopeProblem(429, greedy.body)).toBeNull();
    expect(other.status).toBe(200);
    expect(closed.every((c) => c !== null)).toBe(true);
    expect(after.status).toBe(200);
  }, 30_000);
});

describe('idle, half-open and slow sockets', () => {
  const HEADERS_TIMEOUT = 1_000;
  const REQUEST_TIMEOUT = 2_000;
  const IDLE = 300;

  it(`${IDLE} sockets that send half a request line do not block real requests, and the server closes them after the header timeout`, async () => {
    const api = await start({
      server: { headersTimeoutMs: HEADERS_TIMEOUT, requestTimeoutMs: REQUEST_TIMEOUT, timeoutCheckIntervalMs: 100 },
    });
    const opening = performance.now();
    const idle = await Promise.all(Array.from({ length: IDLE }, () => openSocket(api.port)));
    const silent = await Promise.all(Array.from({ length: 50 }, () => openSocket(api.port)));
    for (const s of [...idle, ...silent]) s.on('error', () => undefined);
    for (const s of idle) s.write('POST /api/audiences/prev');
    const closings = [...idle, ...silent].map((s) => closedWithin(s, HEADERS_TIMEOUT + 3_000));
    // Real requests while all of them are open.
    const real = [];
    for (let i = 0; i < 20; i++) real.push(await timedPreview(api));
    const realLatency = latencies(real.map((r) => r.ms));
    const closedAfter = await Promise.all(closings);
    const openedFor = closedAfter.map((ms) => (ms === null ? null : ms + 0));
    const stillOpen = openedFor.filter((ms) => ms === null).length;
    const slowestClose = Math.round(Math.max(...openedFor.map((ms) => ms ?? Infinity)));
    console.info(
      `load: ${IDLE} half-request-line sockets + 50 silent ones open (set up in ${Math.round(performance.now() - opening)} ms): ` +
        `20 real requests all ${[...new Set(real.map((r) => r.status))].join('/')}, p50 ${realLatency.p50} ms, max ${realLatency.max} ms; ` +
        `server closed ${openedFor.length - stillOpen}/${openedFor.length} idle sockets, the last after ${slowestClose} ms (header timeout ${HEADERS_TIMEOUT} ms)`,
    );
    // All served while the sockets were open: the promise is "not blocked", not a latency (that is for bench/).
    expect(real.map((r) => r.status)).toEqual(real.map(() => 200));
    expect(stillOpen).toBe(0);
    for (const s of [...idle, ...silent]) s.destroy();
  }, 30_000);

  it('a body that never finishes is cut off at the request timeout, while real requests go on', async () => {
    const api = await start({
      server: { headersTimeoutMs: HEADERS_TIMEOUT, requestTimeoutMs: REQUEST_TIMEOUT, timeoutCheckIntervalMs: 100 },
    });
    // 50 slow bodies over five keys (a key may have 16 requests in flight), real requests on another.
    const slowKeys = Array.from({ length: 5 }, (_, i) => api.core.keys.create(`slow ${i}`).key);
    const slow = await Promise.all(Array.from({ length: 50 }, (_, i) => stalledBody(api, slowKeys[i % 5])));
    const received: string[] = slow.map(() => '');
    slow.forEach((s, i) => s.on('data', (d: Buffer) => (received[i] += d.toString())));
    const closings = slow.map((s) => closedWithin(s, REQUEST_TIMEOUT + 3_000));
    const real = [];
    for (let i = 0; i < 10; i++) real.push(await timedPreview(api));
    const closedAfter = await Promise.all(closings);
    console.info(
      `load: 50 stalled bodies: closed after ${Math.round(Math.min(...closedAfter.map((x) => x ?? Infinity)))}-${Math.round(Math.max(...closedAfter.map((x) => x ?? Infinity)))} ms (request timeout ${REQUEST_TIMEOUT} ms); real requests meanwhile all ${[...new Set(real.map((r) => r.status))].join('/')}`,
    );
    expect(real.every((r) => r.status === 200)).toBe(true);
    expect(closedAfter.every((ms) => ms !== null)).toBe(true);
    // No answer at all for a request that timed out: nothing to read, only a closed socket.
    expect(received.every((r) => r === '')).toBe(true);
  }, 30_000);
});

describe('a time budget per query', () => {
  it('a query past its budget answers 503 unavailable saying so, and the server goes on answering', async () => {
    const api = await start({ core: { queryBudgetMs: 0 } });
    const filtered = await send(api.url, {
      method: 'POST',
      path: '/api/audiences/preview',
      headers: { 'content-type': 'application/json', 'x-api-key': api.key },
      body: JSON.stringify({
        state: 'CA',
        filters: [
          ['GENDER', ['F']],
          ['AGE', ['25-54']],
        ],
      }),
    });
    expect(filtered.status).toBe(503);
    expect(envelopeProblem(503, filtered.body)).toBeNull();
    expect(JSON.parse(filtered.body).error).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/exceeded its time budget of 0 ms/),
    });
    const whole = await send(api.url, {
      method: 'POST',
      path: '/api/audiences/search',
      headers: { 'content-type': 'application/json', 'x-api-key': api.key },
      body: JSON.stringify({ state: 'TX', limit: 10 }),
    });
    expect(whole.status).toBe(503);
    expect((await send(api.url, { path: '/api/health' })).status).toBe(200);

    const normal = await start();
    const same = await send(normal.url, {
      method: 'POST',
      path: '/api/audiences/preview',
      headers: { 'content-type': 'application/json', 'x-api-key': normal.key },
      body: JSON.stringify({
        state: 'CA',
        filters: [
          ['GENDER', ['F']],
          ['AGE', ['25-54']],
        ],
      }),
    });
    expect(same.status).toBe(200);
  });

  it('the heaviest request the limits allow stays within the default budget here', async () => {
    // 64 filters (the maximum) of wide integer bands: every pass walks the whole state.
    const api = await start();
    const filters = Array.from({ length: 64 }, (_, i) => [
      'AGE',
      Array.from({ length: 300 }, (_, k) => `${(k + i) % 100}-${((k + i) % 100) + 1}`),
    ]);
    const body = JSON.stringify({ state: 'CA', filters, limit: 1000 });
    expect(body.length).toBeLessThan(256 * 1024);
    const started = performance.now();
    const res = await send(api.url, {
      method: 'POST',
      path: '/api/audiences/search',
      headers: { 'content-type': 'application/json', 'x-api-key': api.key },
      body,
      timeoutMs: 10_000,
    });
    const ms = Math.round(performance.now() - started);
    console.info(`load: heaviest allowed request (64 filters x 300 bands, limit 1000): ${res.status} in ${ms} ms`);
    expect(res.status).toBe(200);
  });
});
