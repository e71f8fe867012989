// The desktop app's life: one instance, then on ready the core (app state in userData, the bundled
// or last-chosen dataset), the loopback API on 127.0.0.1, the IPC handlers and the window; on quit,
// the one shutdown (src/server/shutdown.ts): exports and imports stopped and audited, everything closed.
import { app, ipcMain, safeStorage, session, shell, type BrowserWindow } from 'electron';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createCore, type Core } from '../core/createCore';
import { createHandlers } from '../core/handlers';
import { ApiServer } from '../server/apiServer';
import { collectStartupGarbage, tuneHeapForServing } from '../server/heapTuning';
import { spendDetachProtector } from '../server/detachProtector';
import { warmRequestPath } from '../server/warmRequestPath';
import { shutdown } from '../server/shutdown';
import { DESKTOP_CHANNELS } from '../shared/desktopExtras';
import { bundledDatasetPath, isAppUrl, type AppLocation } from './appPaths';
import { registerAppSchemePrivileged, serveAppScheme } from './appScheme';
import { openDialogImportFiles, saveDialogExportPath } from './dialogs';
import { registerIpc, showInFolderHandler } from './ipc';
import { hardenSession, hardenWebContents } from './security';
import { SafeStorageSecretStore } from './safeStorageSecretStore';
import { Settings } from './settings';
import { createMainWindow } from './window';

export interface StartOptions {
  /** A dataset to open instead of the remembered or bundled one (tests, command line). */
  datasetPath?: string;
}

export interface RunningApp {
  core: Core;
  server: ApiServer;
  settings: Settings;
  window: () => BrowserWindow | null;
  channels: string[];
  shutdown(): Promise<void>;
}

function location(): AppLocation {
  return {
    isPackaged: app.isPackaged,
    appPath: app.getAppPath(),
    resourcesPath: process.resourcesPath,
    devServerUrl: process.env.ELECTRON_RENDERER_URL,
  };
}

/** The remembered dataset if it still opens, else the bundled one; without either the app says `unavailable`. */
function openDataset(core: Core, settings: Settings, loc: AppLocation, explicit?: string): void {
  const candidates = [explicit, settings.get('dataset.last'), bundledDatasetPath(loc)].filter((p): p is string => !!p && existsSync(p));
  for (const path of candidates) {
    try {
      core.openDataset(path);
      if (path !== bundledDatasetPath(loc)) settings.set('dataset.last', path);
      return;
    } catch (e) {
      console.error(`Cannot open dataset ${path}:`, e);
    }
  }
}

/** The remembered port if it is free, else any free port (remembered for next time). */
async function listen(server: ApiServer, settings: Settings): Promise<void> {
  const remembered = settings.get('api.port');
  try {
    await server.listen(remembered);
  } catch {
    await server.listen(0);
  }
  settings.set('api.port', server.listeningPort);
}

export async function boot(options: StartOptions = {}): Promise<RunningApp> {
  // Before the dataset opens: its start-up's collections are at the serving factor too.
  tuneHeapForServing();
  spendDetachProtector();
  const loc = location();
  hardenSession(session.defaultSession, loc);
  serveAppScheme(session.defaultSession, loc);
  const core = createCore({
    homeDir: app.getPath('userData'),
    bundledDatasetPath: bundledDatasetPath(loc),
    // A ClickHouse password of the Data source setting: encrypted by the OS keychain (SECURITY.md).
    secretStore: (db) => new SafeStorageSecretStore(db, safeStorage),
  });
  const settings = new Settings(core.appState);
  // The stored data source (a ClickHouse server) unless a dataset was named; else the remembered or bundled file.
  await core.dataSources.openAtStart(() => openDataset(core, settings, loc, options.datasetPath), options.datasetPath !== undefined);
  // An import or a switch changes datasets while the app runs: the next start opens the same one
  // (the bundled dataset is what opens when none is remembered).
  core.onDatasetOpened((path) => {
    settings.set('dataset.last', resolve(path) === resolve(bundledDatasetPath(loc)) ? null : path);
  });
  // Before it listens: the first request is not the one to compile the request path.
  await warmRequestPath(core);
  const server = new ApiServer(core);
  await server.warmUp();
  collectStartupGarbage();
  await listen(server, settings);

  let win: BrowserWindow | null = null;
  const window = () => win;
  const handlers = createHandlers(core, {
    resolveExportPath: saveDialogExportPath(window, () => app.getPath('documents')),
    pickImportFiles: openDialogImportFiles(window, () => app.getPath('documents')),
    apiStatus: () => ({ url: server.url, running: server.listeningPort > 0, recent: server.requestLog.recent() }),
  });
  const channels = registerIpc(ipcMain, {
    handlers,
    extras: {
      [DESKTOP_CHANNELS.showInFolder]: showInFolderHandler(
        (p) => (core.exportJobs.wasExported(p) || core.importJobs.wroteRejects(p)) && existsSync(p),
        (p) => shell.showItemInFolder(p),
      ),
    },
    window,
    isAppUrl: (url) => isAppUrl(loc, url),
  });
  win = createMainWindow(loc, settings);
  win.on('closed', () => (win = null));

  let closing: Promise<void> | null = null;
  return { core, server, settings, window, channels, shutdown: () => (closing ??= shutdown(core, server)) };
}

/** The entry point's whole job: claim the single instance, then boot when Electron is ready. */
export function startApp(options: StartOptions = {}): Promise<RunningApp | null> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return Promise.resolve(null);
  }
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
  registerAppSchemePrivileged(); // Electron accepts this only before ready
  return app.whenReady().then(async () => {
    const running = await boot(options);
    app.on('second-instance', () => {
      const win = running.window();
      if (!win) return;
      if (win.isMinimized()) win.restore();
      win.focus();
    });
    app.on('window-all-closed', () => app.quit());
    let done = false;
    app.on('before-quit', (event) => {
      if (done) return;
      event.preventDefault();
      void running.shutdown().finally(() => {
        done = true;
        app.quit();
      });
    });
    return running;
  });
}
