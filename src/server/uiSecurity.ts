// What protects the renderer wherever it runs: one Content-Security-Policy (sent as a header by
// browser mode and by Electron's session, on top of index.html's own meta tag), the browser-mode
// page token, and the checks on it.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Scripts only from the app itself, no eval, nothing remote, no frames, no forms, no plugins.
 * Inline styles are allowed because the grid and Vue's style bindings set them.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  // The page URL holds the token: never send it anywhere as a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** A fresh page token per start of `serve`: 256 random bits, URL-safe. */
export function createUiToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What the page's cookie holds: a value derived from the token that opens the page's own files and
 * nothing else. Browsers send a cookie of 127.0.0.1 to every port of it (cookies are not separated
 * by port, and SameSite counts every port as the same site), so whatever the cookie holds reaches
 * any other local server the browser visits; it must not work as the rpc token.
 */
export function pageCookieValue(token: string): string {
  return createHmac('sha256', token).update('audience desk: the ui page files only').digest('base64url');
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time comparison (of digests, so neither the length nor a prefix leaks). */
export function tokenMatches(presented: unknown, token: string): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 256) return false;
  return timingSafeEqual(digest(presented), digest(token));
}

/** One cookie value from a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
