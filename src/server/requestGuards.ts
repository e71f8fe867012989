// Checks that run before anything else on every request: the loopback server must not be usable
// from a web page the user happens to visit (DNS rebinding, cross-site fetch or form posts).
import { AppError } from '../shared/errors';

export interface GuardOptions {
  /** The port the server listens on, once known: Host must name it. */
  port: () => number;
  /** Origins allowed to call the API (empty by default: no web page may). */
  allowedOrigins: readonly string[];
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/** The Host header must be a loopback name with our own port: a rebinding attacker's name is not. */
export function checkHost(host: string | undefined, port: number): void {
  const ok = host !== undefined && LOOPBACK_HOSTS.some((h) => host.toLowerCase() === `${h}:${port}`);
  if (!ok) throw new AppError('forbidden', 'This server answers only requests addressed to 127.0.0.1 or localhost with its own port.');
}

/** Browsers send Origin on cross-origin and on POST requests; only allow-listed origins may call. */
export function checkOrigin(origin: string | undefined, fetchSite: string | undefined, allowed: readonly string[]): void {
  if (origin !== undefined && !allowed.includes(origin))
    throw new AppError('forbidden', 'Requests from web pages are refused; call the API from a local program.');
  if (fetchSite === 'cross-site')
    throw new AppError('forbidden', 'Cross-site requests are refused.');
}

/** Only `application/json` bodies (a charset parameter is fine): no HTML form can post one. */
export function checkJsonContentType(contentType: string | undefined): void {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json')
    throw new AppError('unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
}
