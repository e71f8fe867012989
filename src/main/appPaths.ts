// Where the desktop app finds its own files, in development (electron-vite dev/preview, run from the
// project) and packaged (electron-builder: code in app.asar, the dataset in resources/), and which
// page URLs are "ours" (the only ones allowed to call the back end).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Same name as src/cli/bundledDataset.ts and electron-builder.yml's extraResources (a test pins all three). */
export const BUNDLED_FILE_NAME = 'audience-desk-sample.sqlite';

export interface AppLocation {
  isPackaged: boolean;
  /** app.getAppPath(): the project folder in development, .../resources/app.asar when packaged. */
  appPath: string;
  /** process.resourcesPath when packaged. */
  resourcesPath: string;
  /** electron-vite's dev server, when running `electron-vite dev`. */
  devServerUrl?: string;
}

export function bundledDatasetPath(loc: AppLocation): string {
  return loc.isPackaged ? join(loc.resourcesPath, BUNDLED_FILE_NAME) : join(loc.appPath, 'resources', BUNDLED_FILE_NAME);
}

export function preloadPath(loc: AppLocation): string {
  return join(loc.appPath, 'out', 'preload', 'index.cjs');
}

export function rendererIndexPath(loc: AppLocation): string {
  return join(loc.appPath, 'out', 'renderer', 'index.html');
}

/** True for the renderer's own page (any hash or query), false for anything else, including subpages. */
export function isAppUrl(loc: AppLocation, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!loc.isPackaged && loc.devServerUrl) return parsed.origin === new URL(loc.devServerUrl).origin;
  const index = pathToFileURL(rendererIndexPath(loc));
  return parsed.protocol === 'file:' && parsed.host === index.host && parsed.pathname === index.pathname;
}

/** Requests the renderer may make at all: its own files (or the dev server) and devtools. */
export function isAllowedRequest(loc: AppLocation, url: string): boolean {
  if (url.startsWith('devtools:') || url.startsWith('data:')) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!loc.isPackaged && loc.devServerUrl) {
    const dev = new URL(loc.devServerUrl);
    if (parsed.host === dev.host && ['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) return true;
  }
  if (parsed.protocol !== 'file:') return false;
  const rendererDir = pathToFileURL(join(loc.appPath, 'out', 'renderer') + '/').pathname;
  return parsed.pathname.startsWith(rendererDir);
}
