// Sends warm-up requests through a real socket instead of Fastify's inject(): inject hands Fastify
// fake request and response objects, so Node's own HTTP path (the parser, ServerResponse, the
// socket's writes and keep-alive) stayed cold until the first real request compiled it. The socket
// is a private one: a Unix socket in a folder only this user can enter (a named pipe with a random
// name on Windows), served by the same request handler as the real server, and closed before that
// server listens, so no neighbour ever reaches a warm-up request.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a Node HTTP server calls with each request (Fastify's router, for the API server). */
export type RequestHandler = RequestListener<typeof IncomingMessage, typeof ServerResponse>;

export interface WarmRequest {
  url: string;
  headers: Record<string, string>;
  payload: string;
}

/** Where the throwaway server listens, and what to remove afterwards. */
function privateSocket(): { path: string; cleanup: () => void } {
  if (process.platform === 'win32')
    return { path: `\\\\?\\pipe\\audience-desk-warm-${randomBytes(16).toString('hex')}`, cleanup: () => undefined };
  // mkdtemp makes the folder 0700: only this user can reach the socket inside it.
  const dir = mkdtempSync(join(tmpdir(), 'audience-desk-warm-'));
  return { path: join(dir, 's'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function post(socketPath: string, r: WarmRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(r.payload);
    const req = request(
      { socketPath, agent: false, path: r.url, method: 'POST', headers: { ...r.headers, 'content-length': String(body.length) } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Answers `requests` one after the other with `handler` over a private socket; the answers are dropped. */
export async function warmThroughSocket(handler: RequestHandler, requests: readonly WarmRequest[]): Promise<void> {
  const { path, cleanup } = privateSocket();
  const server = createServer(handler);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
    for (const r of requests) await post(path, r);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    cleanup();
  }
}
