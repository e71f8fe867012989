// Before it listens, the API server sends one keyless request through Fastify's own path
// (ApiServer.warmUp): it reaches no handler, is not logged, does not spend the keyless limit, and
// is never sent once the server listens. A real HTTP server on port 0 on the shared test dataset.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { ApiServer } from '../../src/server/apiServer';

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

const keyless = (url: string) =>
  fetch(`${url}/api/audiences/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

describe('the API server warming up before it listens', () => {
  it('asks no handler, logs nothing and leaves the keyless limit whole', async () => {
    const { core, server } = open();
    const search = vi.spyOn(core.audiences, 'search');
    const verify = vi.spyOn(core.keys, 'verify');
    await server.warmUp();
    // The key check ran (that is the path being compiled) and refused; no audience was asked.
    expect(verify).toHaveBeenCalledTimes(1);
    expect(search).not.toHaveBeenCalled();
    expect(server.requestLog.recent()).toEqual([]);
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
    await server.warmUp();
    const url = await server.listen(0);
    const { key } = core.keys.create('after warm-up');
    const answer = await fetch(`${url}/api/audiences/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ state: 'CA', limit: 0, filters: [] }),
    });
    expect(answer.status).toBe(200);
    expect(server.requestLog.recent()).toMatchObject([{ status: 200, keyName: 'after warm-up' }]);
  });
});
