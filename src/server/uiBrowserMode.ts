// Wires browser mode for `serve`: the handler table with browser-mode deps (exports into the home
// folder, imports from its inbox folder, the API's own status) and the /ui/ routes with a fresh page token.
import { fileURLToPath } from 'node:url';
import type { Core } from '../core/createCore';
import { createHandlers } from '../core/handlers';
import type { ApiServer } from './apiServer';
import { browserExportPath } from './uiExportPath';
import { browserImportPick } from './uiImportInbox';
import { createUiToken } from './uiSecurity';
import { registerUi, type UiMount } from './uiServer';

/** Where `electron-vite build` writes the renderer, relative to this source file. */
export const DEFAULT_RENDERER_DIR = fileURLToPath(new URL('../../out/renderer/', import.meta.url));

export const UI_NOT_BUILT = 'ui: not available, the renderer is not built (run `npm run build`, then restart serve)';

/** Registers the UI on the server (before it listens); `available` is false when there is nothing to serve. */
export function mountBrowserUi(core: Core, server: ApiServer, rendererDir = DEFAULT_RENDERER_DIR): Promise<UiMount> {
  const handlers = createHandlers(core, {
    resolveExportPath: browserExportPath(core.homeDir),
    pickImportFiles: browserImportPick(core.homeDir),
    apiStatus: () => ({
      url: server.listeningPort ? server.url : null,
      running: server.listeningPort > 0,
      recent: server.requestLog.recent(),
    }),
  });
  return registerUi(server, { handlers, rendererDir, token: createUiToken(), homeDir: core.homeDir });
}
