// Where the desktop app finds its own files, in development (electron-vite dev/preview, run from the
// project) and packaged (electron-builder: code in app.asar, the dataset in resources/), and which
// page URLs are "ours" (the only ones allowed to call the back end). Outside the dev server the
// renderer is served as app://audience-desk/ (src/main/appProtocol.ts), never as file://.
import { join } from 'node:path';
import { BUNDLED_FILE_NAME } from '../core/appState/homeLayout';
import { APP_HOST, APP_INDEX_URL, APP_SCHEME } from './appProtocol';

export { BUNDLED_FILE_NAME };

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

/** The folder the app:// scheme serves: electron-vite's renderer build (inside app.asar when packaged). */
export function rendererRootPath(loc: AppLocation): string {
  return join(loc.appPath, 'out', 'renderer');
}

const onDevServer = (loc: AppLocation): loc is AppLocation & { devServerUrl: string } => !loc.isPackaged && !!loc.devServerUrl;

/** The page the window loads: electron-vite's dev server in development, else our app:// index. */
export function rendererUrl(loc: AppLocation): string {
  return onDevServer(loc) ? loc.devServerUrl : APP_INDEX_URL;
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** True for the renderer's own page (any hash or query), false for anything else, including subpages and file: URLs. */
export function isAppUrl(loc: AppLocation, url: string): boolean {
  const parsed = parse(url);
  if (!parsed) return false;
  if (onDevServer(loc)) return parsed.origin === new URL(loc.devServerUrl).origin;
  const index = new URL(APP_INDEX_URL);
  return (
    parsed.protocol === index.protocol &&
    parsed.host === index.host &&
    !parsed.username &&
    !parsed.password &&
    parsed.pathname === index.pathname
  );
}

/**
 * Requests the renderer may make at all: devtools, data: URLs, and its own files: the dev server in
 * development, else app://audience-desk/ (which file, if any, answers is appProtocol's decision).
 * file: is never allowed.
 */
export function isAllowedRequest(loc: AppLocation, url: string): boolean {
  if (url.startsWith('devtools:') || url.startsWith('data:')) return true;
  const parsed = parse(url);
  if (!parsed) return false;
  if (onDevServer(loc)) {
    const dev = new URL(loc.devServerUrl);
    return parsed.host === dev.host && ['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol);
  }
  return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && !parsed.username && !parsed.password;
}
