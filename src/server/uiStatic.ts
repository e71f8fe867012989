// The built renderer's files, read from one folder and never from outside it: a path that
// normalizes outside the folder, a dotfile or a directory is simply not found.
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticFile {
  body: Buffer;
  type: string;
}

/** The file at `relative` (URL-decoded, '' for index.html) under `root`, or null. */
export async function readStaticFile(root: string, relative: string): Promise<StaticFile | null> {
  const base = resolve(root);
  const wanted = relative === '' || relative.endsWith('/') ? `${relative}index.html` : relative;
  if (wanted.includes('\0') || wanted.split('/').some((part) => part.startsWith('.'))) return null;
  const full = resolve(base, normalize(wanted));
  if (!full.startsWith(base + sep)) return null;
  try {
    if (!(await stat(full)).isFile()) return null;
    return { body: await readFile(full), type: TYPES[extname(full).toLowerCase()] ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}

export function hasIndex(root: string): Promise<boolean> {
  return stat(join(root, 'index.html')).then(
    (s) => s.isFile(),
    () => false,
  );
}
