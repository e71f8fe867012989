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

/**
 * safeStorage: a reversible transform that is NOT the identity (a version prefix, then the UTF-8
 * bytes reversed and XORed), so a stored value equal to the password, or holding it, shows that it
 * was not encrypted. `available` and `backend` stand for the OS keychain's state; like Electron's,
 * decrypting what it did not encrypt throws.
 */
export const safeStorageState = {
  available: true,
  backend: 'gnome_libsecret' as 'basic_text' | 'gnome_libsecret' | 'kwallet' | 'kwallet5' | 'kwallet6' | 'unknown',
};
const SAFE_PREFIX = Buffer.from('v11');
const scramble = (bytes: Buffer): Buffer => Buffer.from([...bytes].reverse().map((b) => b ^ 0xa5));
function fakeEncrypt(plainText: string): Buffer {
  if (!safeStorageState.available)
    throw new Error('Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.');
  return Buffer.concat([SAFE_PREFIX, scramble(Buffer.from(plainText, 'utf8'))]);
}
function fakeDecrypt(encrypted: Buffer): string {
  if (!safeStorageState.available || !encrypted.subarray(0, SAFE_PREFIX.length).equals(SAFE_PREFIX))
    throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
  return scramble(encrypted.subarray(SAFE_PREFIX.length)).toString('utf8');
}
export const safeStorage = {
  isEncryptionAvailable: () => safeStorageState.available,
  isAsyncEncryptionAvailable: async () => safeStorageState.available,
  getSelectedStorageBackend: () => safeStorageState.backend,
  encryptString: fakeEncrypt,
  decryptString: fakeDecrypt,
  encryptStringAsync: async (plainText: string) => fakeEncrypt(plainText),
  decryptStringAsync: async (encrypted: Buffer) => ({ result: fakeDecrypt(encrypted), shouldReEncrypt: false }),
};

export default { app, ipcMain, BrowserWindow, screen, shell, dialog, session, protocol, contextBridge, ipcRenderer, safeStorage };
