// Browser mode's uploads over real HTTP (the API server on port 0 with the UI mounted, a real home):
// a file lands in the inbox under a sanitised name, owner-only, never over another file; the rpc
// token, the media type and the size limit are checked before the body is read (413 past the limit,
// from Content-Length or while streaming, leaving nothing behind); an uploaded file is then picked and
// imported exactly as a file copied into the inbox.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { createHandlers } from '../../src/core/handlers';
import { ApiServer } from '../../src/server/apiServer';
import { browserImportPick } from '../../src/server/uiImportInbox';
import { DEFAULT_RENDERER_DIR } from '../../src/server/uiBrowserMode';
import { registerUi } from '../../src/server/uiServer';
import { UPLOAD_PATH } from '../../src/server/uiUpload';
import { RPC_TOKEN_HEADER } from '../../src/shared/rpcPaths';
import { ensureBuilt } from '../packaging/ensureBuilt';
import { SqlOracle } from '../support/oracle';

const LIMIT = 64 * 1024;
const TOKEN = 'upload-test-token-0123456789abcdefghijklmnopqrstuv';
let home: string;
let core: Core;
let server: ApiServer;
let base: string;
let inbox: string;

beforeAll(async () => {
  await ensureBuilt();
  home = mkdtempSync(join(tmpdir(), 'audience-desk-upload-'));
  core = createCore({ homeDir: home, datasetPath: inject('datasetPath') });
  server = new ApiServer(core);
  const handlers = createHandlers(core, {
    resolveExportPath: async () => null,
    pickImportFiles: browserImportPick(home),
    apiStatus: () => ({ url: null, running: true, recent: [] }),
  });
  const mount = await registerUi(server, {
    handlers,
    rendererDir: DEFAULT_RENDERER_DIR,
    token: TOKEN,
    homeDir: home,
    uploadMaxBytes: LIMIT,
  });
  expect(mount.available).toBe(true);
  base = await server.listen(0);
  inbox = join(home, 'imports');
}, 300_000);

afterAll(async () => {
  await server?.close();
  await core?.shutdown();
  rmSync(home, { recursive: true, force: true });
});

/** Answers are read loosely typed: the shapes are what these tests check. */
const json = async (r: Response): Promise<any> => r.json();

const upload = (name: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${base}${UPLOAD_PATH}?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', [RPC_TOKEN_HEADER]: TOKEN, ...headers },
    body,
  });

const rpc = async (op: string, body: unknown): Promise<any> =>
  (
    await fetch(`${base}/ui/rpc/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [RPC_TOKEN_HEADER]: TOKEN },
      body: JSON.stringify(body),
    })
  ).json();

/** Sends a body in chunks without a Content-Length (chunked), as a stream would; resolves with the status and body. */
function uploadChunked(name: string, chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${base}${UPLOAD_PATH}?name=${encodeURIComponent(name)}`);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', [RPC_TOKEN_HEADER]: TOKEN, host: url.host },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', (e) =>
      (e as NodeJS.ErrnoException).code === 'EPIPE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e),
    );
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const visible = () =>
  readdirSync(inbox)
    .filter((n) => !n.startsWith('.'))
    .sort();
const hidden = () => readdirSync(inbox).filter((n) => n.startsWith('.'));

describe('uploads into the inbox', () => {
  it('keeps only the file name, tamed; owner-only; never replaces a file of the same name', async () => {
    const r = await upload('../../etc/dnc list?.csv', 'PID\n');
    expect(r.status).toBe(200);
    expect(await json(r)).toEqual({ ok: true, value: { name: 'dnc list_.csv', bytes: 4, inbox } });
    expect(statSync(join(inbox, 'dnc list_.csv')).mode & 0o777).toBe(0o600);
    const again = await json(await upload('C:\\Users\\me\\dnc list?.csv', 'PHONE\n'));
    expect(again.value.name).toBe('dnc list_ (2).csv');
    expect(readFileSync(join(inbox, 'dnc list_.csv'), 'utf8')).toBe('PID\n');
    expect(readFileSync(join(inbox, 'dnc list_ (2).csv'), 'utf8')).toBe('PHONE\n');
    expect((await json(await upload('...hidden.csv', 'x\n'))).value.name).toBe('hidden.csv');
    const dotsOnly = await upload('/tmp/..', 'x');
    expect(dotsOnly.status).toBe(400);
    expect((await json(dotsOnly)).error).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(hidden()).toEqual([]);
  });

  it('refuses without the rpc token, with another media type or an encoding, and writes nothing', async () => {
    const before = visible();
    const noToken = await fetch(`${base}${UPLOAD_PATH}?name=a.csv`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: 'PID\n',
    });
    expect(noToken.status).toBe(401);
    expect((await json(noToken)).error.code).toBe('unauthorized');
    expect((await upload('a.csv', 'PID\n', { 'content-type': 'application/json' })).status).toBe(415);
    expect((await upload('a.csv', 'PID\n', { 'content-encoding': 'gzip' })).status).toBe(415);
    const foreign = await upload('a.csv', 'PID\n', { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(visible()).toEqual(before);
  });

  it('413 past the limit, from Content-Length or while the body streams, leaving no file and no partial', async () => {
    const before = visible();
    const big = await upload('big.csv', Buffer.alloc(LIMIT + 1, 65));
    expect(big.status).toBe(413);
    expect((await json(big)).error).toMatchObject({ code: 'payload_too_large' });
    const streamed = await uploadChunked('streamed.csv', [Buffer.alloc(LIMIT / 2, 65), Buffer.alloc(LIMIT / 2, 65), Buffer.alloc(10, 65)]);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.message).toMatch(/larger than/);
    expect(visible()).toEqual(before);
    expect(hidden()).toEqual([]);
    // Exactly the limit is fine.
    const fits = await upload('fits.csv', Buffer.alloc(LIMIT, 65));
    expect(fits.status).toBe(200);
  });

  it('an uploaded suppression list is picked and imported like a file copied into the inbox', async () => {
    const oracle = new SqlOracle(inject('datasetPath'));
    const pids = oracle.pids('WY', [['GENDER', ['F']]]).slice(0, 12);
    oracle.close();
    const sent = await json(await upload('wy women.csv', ['PID', ...pids].join('\n') + '\n'));
    const pick = await rpc('lists/pick', {});
    const path = join(inbox, sent.value.name);
    expect(pick.value.files).toContain(path);
    const imported = await rpc('lists/import', { file: path, name: 'WY women' });
    expect(imported.value).toMatchObject({ name: 'WY women', pids: 12, matched: 12 });
    // A file that was never picked (written after the pick) is still refused.
    writeFileSync(join(inbox, 'late.csv'), 'PID\n');
    expect((await rpc('lists/import', { file: join(inbox, 'late.csv'), name: 'late' })).error.code).toBe('forbidden');
  });
});
