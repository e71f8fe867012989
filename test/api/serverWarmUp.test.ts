// Before it listens, the API server sends requests of its own through the whole request path
// (ApiServer.warmUp), over a real socket of its own (a private Unix socket, not Fastify's inject, so
// Node's HTTP path is compiled too): one keyless, refused at the key check, and the start-up's
// searches and count under a one-time credential that is no key of the store and that nothing accepts
// once the server listens. None is logged, spends the keyless limit or marks a key as used, and a warm-up asked for
// once the server listens sends nothing. A real HTTP server on port 0 on the shared test dataset.
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { ApiServer } from '../../src/server/apiServer';
import { warmRequestBodies } from '../../src/server/warmRequestPath';

let core: Core | undefined;
let server: ApiServer | undefined;
let home: string | undefined;
afterEach(async () => {
  await server?.close();
  await core?.shutdown();
  if (home) rmSync(home, { recursive: true, force: true });
  core = server = home = undefined;
});

function open(unauthenticatedLimit = { perSecond: 0.001, burst: 1 }): { core: Core; server: ApiServer } {
  home = mkdtempSync(join(tmpdir(), 'audience-desk-server-warm-'));
  core = createCore({ homeDir: home, datasetPath: inject('datasetPath') });
  server = new ApiServer(core, { unauthenticatedLimit });
  return { core, server };
}

/**
 * Watches the requests reaching the server's own request handler: the X-API-KEY of each, in order
 * (undefined: none), and whether each came over a real socket (Node's net.Socket, which inject()'s
 * fake requests are not).
 */
async function watchRequests(server: ApiServer): Promise<Array<{ key: string | undefined; realSocket: boolean }>> {
  await server.app.ready();
  const seen: Array<{ key: string | undefined; realSocket: boolean }> = [];
  const handler = server.app.server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  server.app.server.removeAllListeners('request');
  server.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const key = req.headers['x-api-key'];
    seen.push({ key: typeof key === 'string' ? key : undefined, realSocket: req.socket instanceof Socket });
    handler(req, res);
  });
  return seen;
}

const keyless = (url: string) =>
  fetch(`${url}/api/audiences/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

describe('the API server warming up before it listens', () => {
  it("asks the start-up's searches and count through the handlers, logs nothing, uses no key and leaves the keyless limit whole", async () => {
    const { core, server } = open();
    const { info } = core.keys.create('a real key');
    const seen = await watchRequests(server);
    const search = vi.spyOn(core.audiences, 'search');
    const preview = vi.spyOn(core.audiences, 'preview');
    const verify = vi.spyOn(core.keys, 'verify');
    const expected = (await warmRequestBodies(core))?.first;
    expect(expected).toMatchObject({ limit: 25, filters: [['GENDER', ['F']]] });
    await server.warmUp();
    // The key store was asked once, for the keyless request it refused; the keyed ones never reached it.
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify).toHaveBeenCalledWith(undefined);
    // The handlers ran with the start-up's audience, its records read (its first page and one at depth) and its count taken.
    expect(search).toHaveBeenCalledTimes(2);
    expect(search.mock.calls[0]![0]).toMatchObject({ state: expected!.state, limit: 25 });
    expect(search.mock.calls[1]![0]).toMatchObject({ state: expected!.state, limit: 100, skip: expect.any(Number) });
    expect(await search.mock.results[0]!.value).toMatchObject({ total: expect.any(Number) });
    expect((await search.mock.results[1]!.value).records.length).toBeGreaterThan(0);
    expect(preview).toHaveBeenCalledTimes(1);
    expect(preview.mock.calls[0]![0]).toMatchObject({ state: expected!.state, limit: 0 });
    expect(server.requestLog.recent()).toEqual([]);
    // No key marked as used.
    expect(core.keys.list().find((k) => k.id === info.id)?.lastUsedAt).toBeNull();
    // One keyless request, then the searches and the count under one credential of 43 characters,
    // each over a real socket.
    const sent = seen.map((r) => r.key);
    expect(sent).toEqual([undefined, expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), sent[1], sent[1]]);
    expect(seen.every((r) => r.realSocket)).toBe(true);
    const url = await server.listen(0);
    // A burst of one: the first keyless request after start is still answered 401, the next 429.
    const first = await keyless(url);
    expect(first.status).toBe(401);
    expect((await keyless(url)).status).toBe(429);
    expect(server.requestLog.recent().map((e) => e.status)).toEqual([429, 401]);
  });

  it('sends nothing once the server listens', async () => {
    const { core, server } = open();
    await server.listen(0);
    const verify = vi.spyOn(core.keys, 'verify');
    await server.warmUp();
    expect(verify).not.toHaveBeenCalled();
    expect(server.requestLog.recent()).toEqual([]);
  });

  it('leaves real requests logged and counted after it', async () => {
    const { core, server } = open({ perSecond: 1000, burst: 1000 });
    const seen = await watchRequests(server);
    await server.warmUp();
    const url = await server.listen(0);
    // The warm-up's one-time credential, presented once the server listens, is no key: 401, not logged as one.
    const warmToken = seen[1]!.key!;
    const search = vi.spyOn(core.audiences, 'search');
    const refused = await fetch(`${url}/api/audiences/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': warmToken },
      body: JSON.stringify({ state: 'CA', limit: 1, filters: [] }),
    });
    expect(refused.status).toBe(401);
    expect(search).not.toHaveBeenCalled();
    expect(server.requestLog.recent()).toMatchObject([{ status: 401, keyName: null }]);
    const { key } = core.keys.create('after warm-up');
    const answer = await fetch(`${url}/api/audiences/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ state: 'CA', limit: 0, filters: [] }),
    });
    expect(answer.status).toBe(200);
    expect(server.requestLog.recent()).toMatchObject([
      { status: 200, keyName: 'after warm-up' },
      { status: 401, keyName: null },
    ]);
  });
});
