// Shared by the security tests: a real Core and ApiServer with options the conformance harness
// does not take (core budget, server limits, hooks that record what the server saw), and raw
// HTTP clients that can send what fetch refuses to (forged Host, broken bytes, half a request).
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core, type CoreOptions } from '../../src/core/createCore';
import { ApiServer, type ApiServerOptions } from '../../src/server/apiServer';

export interface SecurityApi {
  core: Core;
  server: ApiServer;
  url: string;
  port: number;
  key: string;
  homeDir: string;
  /** Every request the server answered, as it saw it (filled when `record` is set). */
  seen: SeenRequest[];
  close(): Promise<void>;
}

export interface SeenRequest {
  method: string;
  url: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  contentType: string | undefined;
  hasKey: boolean;
  status: number;
  /** The body the server sent, as text (cut to 2,000 characters). */
  body: string;
}

export interface StartOptions {
  server?: ApiServerOptions;
  core?: Omit<CoreOptions, 'homeDir' | 'datasetPath'>;
  /** Record every answer in `seen` (an onSend hook added before the server listens). */
  record?: boolean;
  /** Runs before listen, e.g. to register more routes or hooks. */
  beforeListen?: (server: ApiServer, core: Core) => void | Promise<void>;
}

export async function startSecurityApi(datasetPath: string | undefined, options: StartOptions = {}): Promise<SecurityApi> {
  const homeDir = mkdtempSync(join(tmpdir(), 'audience-desk-sec-'));
  const core = createCore({ homeDir, datasetPath, ...options.core });
  const { key } = core.keys.create('security test');
  const server = new ApiServer(core, options.server);
  const seen: SeenRequest[] = [];
  if (options.record) {
    server.app.addHook('onSend', async (request, reply, payload) => {
      const h = request.headers;
      seen.push({
        method: request.method,
        url: request.url,
        host: h.host,
        origin: typeof h.origin === 'string' ? h.origin : undefined,
        secFetchSite: typeof h['sec-fetch-site'] === 'string' ? h['sec-fetch-site'] : undefined,
        contentType: h['content-type'],
        hasKey: typeof h['x-api-key'] === 'string',
        status: reply.statusCode,
        body: typeof payload === 'string' ? payload.slice(0, 2000) : Buffer.isBuffer(payload) ? payload.toString('utf8', 0, 2000) : '',
      });
      return payload;
    });
  }
  await options.beforeListen?.(server, core);
  const url = await server.listen(0);
  return {
    core,
    server,
    url,
    port: server.listeningPort,
    key,
    homeDir,
    seen,
    async close() {
      await server.close();
      await core.shutdown();
      rmSync(homeDir, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with node:http (any Host, any header), failing after `timeoutMs`. */
export function send(
  url: string,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string | string[]>;
    body?: string | Buffer;
    timeoutMs?: number;
    setHost?: boolean;
  } = {},
): Promise<RawResponse> {
  const { method = 'GET', path, headers = {}, body, timeoutMs = 5_000, setHost = true } = options;
  // node:http sends a DELETE or OPTIONS body unframed unless told its length; always frame it.
  const framed =
    body === undefined || Object.keys(headers).some((h) => ['content-length', 'transfer-encoding'].includes(h.toLowerCase()))
      ? headers
      : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const target = new URL(path ?? '/', url);
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: framed, setHost, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms: ${method} ${target.pathname}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes raw bytes on a fresh socket and reads until the server closes it (or `timeoutMs`). */
export function sendRaw(port: number, bytes: Buffer | string, timeoutMs = 5_000): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer: false });
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => {
      clearTimeout(timer);
      if ((e as NodeJS.ErrnoException).code === 'ECONNRESET')
        resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer: true });
      else reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer: true });
    });
    socket.write(bytes);
  });
}

/** Status line and JSON body of a raw HTTP/1.1 answer. */
export function parseRaw(text: string): { status: number; headers: string; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body: end < 0 ? '' : text.slice(end + 4) };
}

/** Opens a socket and resolves once connected; the caller writes (or not) and destroys it. */
export function openSocket(port: number, host = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The error envelope of decisions.md, and the code that belongs to the status. */
export const STATUS_CODES: Record<number, string[]> = {
  400: ['invalid_json', 'invalid_request'],
  401: ['unauthorized'],
  403: ['forbidden'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  429: ['rate_limited'],
  503: ['unavailable'],
};

/** Null when `body` is the one error envelope with a code that fits `status`, else what is wrong. */
export function envelopeProblem(status: number, body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 120)}`;
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown; field?: unknown } }).error;
  if (!error || Object.keys(parsed as object).length !== 1) return `not the envelope: ${body.slice(0, 120)}`;
  if (!STATUS_CODES[status]?.includes(String(error.code))) return `code ${String(error.code)} does not belong to ${status}`;
  if (typeof error.message !== 'string' || error.message.length < 10) return 'message missing';
  if (Object.keys(error).some((k) => !['code', 'message', 'field'].includes(k))) return 'extra members in error';
  return null;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
