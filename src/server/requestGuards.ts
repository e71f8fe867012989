// Checks that run before anything else on every request: the loopback server must not be usable
// from a web page the user happens to visit (DNS rebinding, cross-site fetch or form posts).
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import { AppError } from '../shared/errors';

export interface GuardOptions {
  /** The port the server listens on, once known: Host must name it. */
  port: () => number;
  /** Origins allowed to call the API (empty by default: no web page may). */
  allowedOrigins: readonly string[];
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The Host header must be a loopback name with our own port: a rebinding attacker's name is not.
 * With `rawHeaders`, a request with more than one Host (which Node would quietly cut to the first)
 * is refused too. An HTTP/1.1 request without any Host is malformed (RFC 9112, section 3.2: 400);
 * Node would answer it with a bare 400 of its own, so the server turns that off
 * (`requireHostHeader: false`) and it is answered here, in the envelope. HTTP/1.0 has no Host
 * requirement, so there a missing Host is just not one of ours: 403 like a foreign one.
 */
export function checkHost(host: string | undefined, port: number, rawHeaders?: readonly string[], httpVersion?: string): void {
  const hosts = rawHeaders ? rawHeaders.filter((v, i) => i % 2 === 0 && v.toLowerCase() === 'host').length : 1;
  if (hosts === 0 && httpVersion === '1.1')
    throw new AppError('invalid_request', 'An HTTP/1.1 request must carry a Host header: 127.0.0.1 or localhost with this port.');
  const ok = hosts === 1 && host !== undefined && LOOPBACK_HOSTS.some((h) => host.toLowerCase() === `${h}:${port}`);
  if (!ok) throw new AppError('forbidden', 'This server answers only requests addressed to 127.0.0.1 or localhost with its own port.');
}

/**
 * Browsers send Origin on cross-origin and on POST requests; only allow-listed origins may call.
 * A `no-cors` GET from a page on another port carries no Origin, but the browser still marks it
 * `Sec-Fetch-Site: same-site` (ports do not make a site): that is refused too unless its Origin is
 * allowed, and `cross-site` always is. Programs (curl, scripts) send neither header.
 */
export function checkOrigin(origin: string | undefined, fetchSite: string | undefined, allowed: readonly string[]): void {
  if (origin !== undefined && !allowed.includes(origin))
    throw new AppError('forbidden', 'Requests from web pages are refused; call the API from a local program.');
  if (fetchSite === 'cross-site' || (fetchSite === 'same-site' && origin === undefined))
    throw new AppError('forbidden', 'Cross-site requests are refused.');
}

const UTF8 = new Set(['utf-8', 'utf8']);

/**
 * Only `application/json` bodies: no HTML form can post one. A `charset` parameter may say UTF-8
 * (`utf-8` or `utf8`, any case, quoted or not), the only encoding JSON has (RFC 8259, section 8.1);
 * any other charset is refused rather than read as UTF-8 anyway.
 */
export function checkJsonContentType(contentType: string | undefined): void {
  const [mediaType, ...parameters] = (contentType ?? '').split(';');
  if (mediaType!.trim().toLowerCase() !== 'application/json')
    throw new AppError('unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
  for (const parameter of parameters) {
    const eq = parameter.indexOf('=');
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (!UTF8.has(charset))
      throw new AppError('unsupported_media_type', 'The request body must be JSON in UTF-8: send no charset, or charset=utf-8.');
  }
}

/**
 * A body must be sent as it is: any `Content-Encoding` (gzip, deflate, br …) other than `identity`
 * is refused with 415 and `Accept-Encoding: identity` (RFC 9110, section 12.5.3), never read as JSON.
 */
export function checkContentEncoding(encoding: string | undefined, reply: FastifyReply): void {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return;
  reply.header('Accept-Encoding', 'identity');
  throw new AppError('unsupported_media_type', 'Send the request body uncompressed: no Content-Encoding (gzip, deflate, br) is accepted.');
}

const LOGGABLE_PATH = /^[A-Za-z0-9/._…-]{1,100}$/;
const SECRET_LIKE_SEGMENT = /adk_|^[A-Za-z0-9_-]{20,}$/i;

/**
 * A request path as the request log may hold it: a segment that could be a key or part of one
 * (holds `adk_`, or 20 or more key characters) becomes `…`, and a path with any other characters
 * (percent-escapes, very long) is not kept at all. Keys belong in X-API-KEY; this is for the
 * caller who puts one in the URL anyway.
 */
export function loggablePath(path: string): string {
  const clean = path
    .split('/')
    .map((segment) => (SECRET_LIKE_SEGMENT.test(segment) ? '…' : segment))
    .join('/');
  return LOGGABLE_PATH.test(clean) ? clean : '(unrecognized path)';
}

const BAD_REQUEST_BODY = JSON.stringify({
  error: {
    code: 'invalid_request',
    message: 'The request is not valid HTTP/1.1 (malformed request line or headers, or headers too large).',
  },
});

/**
 * Fastify's `clientErrorHandler`: what the HTTP parser refuses before any route runs. A malformed
 * request gets the one error envelope (400 invalid_request) and the connection is closed. A
 * request that ran past the header or request timeout gets no answer at all, only a closed
 * socket: on loopback a real client never needs 10 s to send its headers, so whoever does is
 * holding a socket on purpose.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  if (!timedOut && socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(BAD_REQUEST_BODY)}\r\n\r\n${BAD_REQUEST_BODY}`,
    );
  }
  socket.destroy();
}
