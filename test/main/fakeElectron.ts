// A stand-in for the `electron` module (the binary cannot run here): records what the main process
// asks of Electron and behaves like it where the tests depend on it, e.g. ipcMain.invoke of a
// channel without a handler rejects, as Electron's own does.
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

type Listener = (...args: any[]) => unknown;

export const state = {
  userData: '',
  appPath: process.cwd(),
  lock: true,
  saveDialogAnswer: null as string | null,
  /** What the open dialog answers: the chosen files, or null (dismissed). */
  openDialogAnswer: null as string[] | null,
  windows: [] as FakeBrowserWindow[],
  /** Set once app.whenReady() has resolved, like Electron's 'ready'. */
  ready: false,
};

export class FakeFrame {
  constructor(public url: string) {}
}

export class FakeWebContents extends EventEmitter {
  mainFrame = new FakeFrame('about:blank');
  windowOpenHandler: Listener | null = null;
  setWindowOpenHandler(handler: Listener) {
    this.windowOpenHandler = handler;
  }
  /** Emits an event the way Electron does, returning whether a listener called preventDefault. */
  emitPreventable(name: string, ...args: unknown[]): boolean {
    let prevented = false;
    this.emit(name, { preventDefault: () => (prevented = true) }, ...args);
    return prevented;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  webContents = new FakeWebContents();
  loaded: { file?: string; url?: string } = {};
  destroyed = false;
  constructor(public options: any) {
    super();
    state.windows.push(this);
  }
  loadFile(file: string) {
    this.loaded.file = file;
    this.webContents.mainFrame.url = new URL(`file://${file}`).href;
    return Promise.resolve();
  }
  loadURL(url: string) {
    this.loaded.url = url;
    this.webContents.mainFrame.url = url;
    return Promise.resolve();
  }
  isDestroyed = () => this.destroyed;
  isMinimized = () => false;
  isMaximized = () => false;
  isFullScreen = () => false;
  getBounds = () => ({ x: 10, y: 20, width: 1111, height: 777 });
  show = vi.fn();
  focus = vi.fn();
  restore = vi.fn();
}

class FakeIpcMain {
  handlers = new Map<string, Listener>();
  /** Every registration in order (kept here: vitest clears mock call records between tests). */
  registered: string[] = [];
  handle = vi.fn((channel: string, listener: Listener) => {
    this.registered.push(channel);
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  });
  async invoke(channel: string, event: unknown, ...args: unknown[]): Promise<any> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(event, ...args);
  }
}

class FakeApp extends EventEmitter {
  isPackaged = false;
  requestSingleInstanceLock = vi.fn(() => state.lock);
  whenReady = vi.fn(() => Promise.resolve().then(() => void (state.ready = true)));
  quit = vi.fn();
  getPath = vi.fn((name: string) => (name === 'userData' ? state.userData : `/tmp/fake-${name}`));
  getAppPath = vi.fn(() => state.appPath);
}

export const app = new FakeApp();
export const ipcMain = new FakeIpcMain();
export const BrowserWindow = FakeBrowserWindow;
export const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };
export const shell = { showItemInFolder: vi.fn() };
export const dialog = {
  showSaveDialog: vi.fn(async () =>
    state.saveDialogAnswer ? { canceled: false, filePath: state.saveDialogAnswer } : { canceled: true, filePath: undefined },
  ),
  showOpenDialog: vi.fn(async () =>
    state.openDialogAnswer ? { canceled: false, filePaths: state.openDialogAnswer } : { canceled: true, filePaths: [] },
  ),
};

/** What the main process installed on the default session. */
export const installed: Record<'permissionRequest' | 'permissionCheck' | 'beforeRequest' | 'headersReceived', Listener | null> = {
  permissionRequest: null,
  permissionCheck: null,
  beforeRequest: null,
  headersReceived: null,
};

/** Schemes declared privileged, each with whether the app was ready yet (Electron accepts them only before). */
export const privilegedSchemes: Array<{ scheme: string; privileges: Record<string, boolean>; beforeReady: boolean }> = [];
export const protocol = {
  registerSchemesAsPrivileged: (schemes: Array<{ scheme: string; privileges: Record<string, boolean> }>) => {
    for (const s of schemes) privilegedSchemes.push({ ...s, beforeReady: !state.ready });
  },
};

/** Scheme handlers installed with session.protocol.handle, and whether the app was ready then. */
export const protocolHandlers = new Map<string, { handler: (request: Request) => Response | Promise<Response>; afterReady: boolean }>();

export const session = {
  defaultSession: {
    protocol: {
      handle: (scheme: string, handler: (request: Request) => Response | Promise<Response>) => {
        // Electron refuses a second handler for the same scheme.
        if (protocolHandlers.has(scheme)) throw new Error(`Failed to register protocol: ${scheme}`);
        protocolHandlers.set(scheme, { handler, afterReady: state.ready });
      },
    },
    setPermissionRequestHandler: (h: Listener) => (installed.permissionRequest = h),
    setPermissionCheckHandler: (h: Listener) => (installed.permissionCheck = h),
    webRequest: {
      onBeforeRequest: (h: Listener) => (installed.beforeRequest = h),
      onHeadersReceived: (h: Listener) => (installed.headersReceived = h),
    },
  },
};

/** What the preload exposed, by key. */
export const exposed: Array<[string, any]> = [];
export const contextBridge = { exposeInMainWorld: (key: string, api: unknown) => exposed.push([key, api]) };
export const ipcRenderer = { invoke: vi.fn() };

export default { app, ipcMain, BrowserWindow, screen, shell, dialog, session, protocol, contextBridge, ipcRenderer };
