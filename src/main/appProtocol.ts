// The app:// scheme the desktop window loads its renderer from (Electron checklist #18: no file://).
// Kept free of `electron` so the decisions (which URL maps to which file, which answer it gets) are
// tested with real files in plain Node; src/main/appScheme.ts only hands Electron's requests to it.
// Reads use node:fs calls that Electron's asar support covers (realpathSync, statSync, readFile),
// because the packaged renderer sits inside app.asar.
import { readFile, realpathSync, statSync } from 'node:fs';
import { extname, isAbsolute, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { CONTENT_SECURITY_POLICY } from '../server/uiSecurity';

export const APP_SCHEME = 'app';
export const APP_HOST = 'audience-desk';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** What the window loads when it is not on electron-vite's dev server. */
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

/** Types for what a Vite build writes; module scripts need a JavaScript type or Chromium refuses them. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The path inside the renderer folder that an app:// URL names ('index.html', 'assets/x.js'), or
 * null when the URL is not ours or not a plain relative path. The URL parser already folds `.`/`..`
 * segments (also written `%2e`); what survives it and is refused here: another scheme, host, port or
 * credentials; a segment that decodes to `.`/`..`, or holds a slash, backslash, NUL or colon (an
 * encoded separator, a Windows drive or stream name); empty segments; a raw backslash anywhere.
 */
export function appUrlToRelativePath(url: string): string | null {
  if (url.includes('\\')) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST || parsed.username || parsed.password) return null;
  const path = parsed.pathname === '/' || parsed.pathname === '' ? '/index.html' : parsed.pathname;
  if (!path.startsWith('/')) return null;
  const segments: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null; // malformed percent-encoding
    }
    if (segment === '' || segment === '.' || segment === '..' || /[/\\\0:]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments.join('/');
}

/**
 * The file under `root` that `url` names, or null when it is refused or is not a regular file: the
 * checks above, then the real path (symlinks followed) must still lie inside the real root.
 */
export function resolveAppFile(root: string, url: string): string | null {
  const rel = appUrlToRelativePath(url);
  if (rel === null) return null;
  const candidate = join(root, ...rel.split('/'));
  try {
    const realRoot = realpathSync(root);
    const real = realpathSync(candidate);
    const inside = relative(realRoot, real);
    if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null; // missing, or unreadable
  }
}

const readFileAsync = promisify(readFile);

/** Headers on every answer, found or not: the app's policy (the window's CSP), and no type sniffing. */
function baseHeaders(): Record<string, string> {
  return { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' };
}

/** The answer to one app:// request: the file with its type and the CSP, 404 otherwise, 405 for writes. */
export async function serveAppRequest(root: string, request: Request): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response('Method not allowed', {
      status: 405,
      headers: { ...baseHeaders(), Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' },
    });
  }
  const file = resolveAppFile(root, request.url);
  if (file === null)
    return new Response('Not found', { status: 404, headers: { ...baseHeaders(), 'Content-Type': 'text/plain; charset=utf-8' } });
  let body: Buffer;
  try {
    body = await readFileAsync(file);
  } catch {
    return new Response('Not found', { status: 404, headers: { ...baseHeaders(), 'Content-Type': 'text/plain; charset=utf-8' } });
  }
  const headers = { ...baseHeaders(), 'Content-Type': contentTypeFor(file), 'Content-Length': String(body.length) };
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}
