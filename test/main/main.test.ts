// The Electron main process's wiring, with a stand-in electron module and the real core, server and
// handler table: channels, sender checks, the window's security settings, navigation and window
// blocking, the session's policy, the app:// scheme the renderer is served from, exports through the
// save dialog and show-in-folder. The scheme's handler answers from the real electron-vite build.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/server/uiSecurity';
import { OPERATION_NAMES } from '../../src/shared/contract';
import { DESKTOP_CHANNELS } from '../../src/shared/desktopExtras';
import type { RunningApp } from '../../src/main/lifecycle';
import { startFakeApp, type FakeApp } from './fakeApp';
import {
  FakeFrame,
  FakeWebContents,
  app,
  dialog,
  installed,
  ipcMain,
  privilegedSchemes,
  protocolHandlers,
  shell,
  state,
  type FakeBrowserWindow,
} from './fakeElectron';

vi.mock('electron', async () => await import('./fakeElectron'));

let desk: FakeApp;
let running: RunningApp;
let win: FakeBrowserWindow;
let home: string;

/** Where the packaged app's page used to be: a file: URL of the built index.html. */
const oldFileUrl = pathToFileURL(join(process.cwd(), 'out', 'renderer', 'index.html')).href;

beforeAll(async () => {
  desk = await startFakeApp(inject('datasetPath'));
  ({ running, win, home } = desk);
});
afterAll(() => desk?.stop());

const call = (channel: string, input: unknown, event?: unknown) => desk.call(channel, input, event);

describe('IPC registration', () => {
  it('registers every contract operation exactly once, plus the desktop extras', () => {
    const channels = ipcMain.registered;
    expect([...channels].sort()).toEqual([...OPERATION_NAMES, DESKTOP_CHANNELS.showInFolder].sort());
    expect(new Set(channels).size).toBe(channels.length);
    expect(running.channels).toEqual(channels);
  });

  it('serves our own window through the handler table, in envelopes', async () => {
    expect(await call('dataset/info', {})).toMatchObject({ ok: true, value: { records: inject('testRows') } });
    expect(await call('audience/count', { state: 'CA', filters: [] })).toMatchObject({ ok: true, value: { total: expect.any(Number) } });
    expect(await call('audience/count', { state: 'XX', filters: [] })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', field: 'state' },
    });
  });

  it('refuses unknown channels (there is no handler for them)', async () => {
    for (const channel of ['nope/nope', 'constructor', '__proto__', 'dataset/info ', 'DATASET/INFO'])
      await expect(call(channel, {})).rejects.toThrow(/No handler registered/);
  });

  it('refuses other web contents, subframes, foreign pages and missing frames', async () => {
    const forbidden = { ok: false, error: { code: 'forbidden' } };
    const other = new FakeWebContents();
    other.mainFrame.url = win.webContents.mainFrame.url;
    expect(await call('keys/list', {}, { sender: other, senderFrame: other.mainFrame })).toMatchObject(forbidden);
    const subframe = new FakeFrame(win.webContents.mainFrame.url);
    expect(await call('keys/list', {}, { sender: win.webContents, senderFrame: subframe })).toMatchObject(forbidden);
    expect(await call('keys/list', {}, { sender: win.webContents, senderFrame: null })).toMatchObject(forbidden);
    const ownUrl = win.webContents.mainFrame.url;
    try {
      // file: pages are never ours now, not even the built index.html itself.
      for (const url of [
        'https://evil.example/',
        'file:///tmp/evil.html',
        oldFileUrl,
        `${oldFileUrl}#/export`,
        `${ownUrl.replace('index.html', 'other.html')}`,
        'app://evil.example/index.html',
      ]) {
        win.webContents.mainFrame.url = url;
        expect(await call('keys/create', { name: 'stolen' })).toMatchObject(forbidden);
      }
    } finally {
      win.webContents.mainFrame.url = ownUrl;
    }
    expect((await call('keys/list', {})).value.map((k: { name: string }) => k.name)).not.toContain('stolen');
    // Our own page with a hash or query is still ours.
    win.webContents.mainFrame.url = `${ownUrl}#/export`;
    expect(await call('keys/list', {})).toMatchObject({ ok: true });
    win.webContents.mainFrame.url = ownUrl;
  });
});

describe('window', () => {
  it('is created with the secure web preferences and our preload, loading our page from app:// (not file://)', () => {
    const prefs = win.options.webPreferences;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      allowRunningInsecureContent: false,
      disableBlinkFeatures: 'Auxclick',
    });
    expect(prefs.preload).toBe(join(process.cwd(), 'out', 'preload', 'index.cjs'));
    expect(app.isPackaged).toBe(false); // electron-vite preview: no dev server, the built files
    expect(win.loaded).toEqual({ url: 'app://audience-desk/index.html' });
    expect(win.webContents.mainFrame.url).toBe('app://audience-desk/index.html');
    expect(win.options.width).toBeGreaterThanOrEqual(900);
  });

  it('blocks navigation, redirects, webviews and new windows', () => {
    expect(win.webContents.emitPreventable('will-navigate', 'https://evil.example/')).toBe(true);
    expect(win.webContents.emitPreventable('will-redirect', 'https://evil.example/')).toBe(true);
    expect(win.webContents.emitPreventable('will-attach-webview', {}, {})).toBe(true);
    expect(win.webContents.windowOpenHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    // Every web contents the app creates later gets the same treatment.
    const later = new FakeWebContents();
    app.emit('web-contents-created', {}, later);
    expect(later.emitPreventable('will-navigate', 'https://evil.example/')).toBe(true);
    expect(later.windowOpenHandler!({ url: 'x' })).toEqual({ action: 'deny' });
  });

  it('remembers its bounds on close', () => {
    win.emit('close');
    expect(running.settings.get('window.bounds')).toEqual({ x: 10, y: 20, width: 1111, height: 777 });
  });
});

describe('session', () => {
  it('denies every permission request and check', () => {
    const callback = vi.fn();
    installed.permissionRequest!({}, 'media', callback);
    expect(callback).toHaveBeenCalledWith(false);
    expect(installed.permissionCheck!({}, 'notifications')).toBe(false);
  });

  it('loads nothing from outside the app', () => {
    const decide = (url: string) => {
      let answer: any;
      installed.beforeRequest!({ url }, (r: unknown) => (answer = r));
      return answer;
    };
    expect(decide('https://cdn.example/x.js')).toEqual({ cancel: true });
    expect(decide('http://127.0.0.1:1234/api/health')).toEqual({ cancel: true });
    expect(decide('file:///etc/passwd')).toEqual({ cancel: true });
    // Not even the renderer's own files as file: URLs.
    expect(decide(oldFileUrl)).toEqual({ cancel: true });
    expect(decide(oldFileUrl.replace('index.html', 'assets/index.js'))).toEqual({ cancel: true });
    expect(decide('app://evil.example/index.html')).toEqual({ cancel: true });
    expect(decide('other://audience-desk/index.html')).toEqual({ cancel: true });
    expect(decide(win.webContents.mainFrame.url)).toEqual({ cancel: false });
    expect(decide(win.webContents.mainFrame.url.replace('index.html', 'assets/index.js'))).toEqual({ cancel: false });
  });

  it('sends the strict Content-Security-Policy as a header, replacing any other', () => {
    let answer: any;
    installed.headersReceived!(
      { responseHeaders: { 'content-security-policy': ['default-src *'], 'X-Other': ['1'] } },
      (r: unknown) => (answer = r),
    );
    const csp = answer.responseHeaders['Content-Security-Policy'][0] as string;
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(answer.responseHeaders['content-security-policy']).toBeUndefined();
    expect(answer.responseHeaders['X-Other']).toEqual(['1']);
  });
});

describe('app:// scheme', () => {
  it('is declared privileged (standard, secure, fetch) before the app is ready, and only that', () => {
    expect(privilegedSchemes).toEqual([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true }, beforeReady: true },
    ]);
  });

  it('is answered on the default session after ready', () => {
    expect([...protocolHandlers.keys()]).toEqual(['app']);
    expect(protocolHandlers.get('app')!.afterReady).toBe(true);
  });

  it('serves the built renderer with its CSP header, and nothing outside out/renderer', async () => {
    const serve = (url: string) => Promise.resolve(protocolHandlers.get('app')!.handler(new Request(url)));
    const page = await serve(win.webContents.mainFrame.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    const html = await page.text();
    expect(html).toBe(readFileSync(join('out', 'renderer', 'index.html'), 'utf8'));
    // Every script and stylesheet the page names resolves against app://audience-desk/ and is served.
    const assets = [...html.matchAll(/(?:src|href)="(\.\/[^"]+)"/g)].map(([, rel]) => new URL(rel!, win.webContents.mainFrame.url).href);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await serve(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type'), asset).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    }
    // The main bundle exists one folder up; no spelling of the path reaches it.
    expect(existsSync(join('out', 'main', 'index.js'))).toBe(true);
    for (const url of [
      'app://audience-desk/../main/index.js',
      'app://audience-desk/%2e%2e/main/index.js',
      'app://audience-desk/..%2fmain%2findex.js',
      'app://audience-desk/..\\main\\index.js',
    ])
      expect((await serve(url)).status, url).toBe(404);
  });
});

describe('exports and show-in-folder', () => {
  it('exports through the native save dialog, and reveals only files this session exported', async () => {
    const target = join(home, 'picked by user');
    state.saveDialogAnswer = target;
    const started = await call('export/start', { state: 'WY', filters: [], format: 'csv', fileName: '../../etc/evil' });
    expect(started.ok).toBe(true);
    expect(dialog.showSaveDialog).toHaveBeenLastCalledWith(win, expect.objectContaining({ defaultPath: '/tmp/fake-documents/evil.csv' }));
    expect(started.value.path).toBe(`${target}.csv`);
    const done = await running.core.exportJobs.settled(started.value.id);
    expect(done.status).toBe('done');
    expect(existsSync(done.path)).toBe(true);

    expect(await call(DESKTOP_CHANNELS.showInFolder, { path: done.path })).toEqual({ ok: true, value: null });
    expect(shell.showItemInFolder).toHaveBeenCalledWith(done.path);
    shell.showItemInFolder.mockClear();
    for (const input of [{ path: '/etc/passwd' }, { path: join(home, 'app-state.sqlite') }, { path: 42 }, null])
      expect((await call(DESKTOP_CHANNELS.showInFolder, input)).ok).toBe(false);
    expect(
      await call(DESKTOP_CHANNELS.showInFolder, { path: done.path }, { sender: new FakeWebContents(), senderFrame: null }),
    ).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(shell.showItemInFolder).not.toHaveBeenCalled();
  });

  it('starts nothing when the dialog is dismissed', async () => {
    state.saveDialogAnswer = null;
    expect(await call('export/start', { state: 'WY', filters: [], format: 'jsonl' })).toMatchObject({
      ok: true,
      value: { id: '', status: 'cancelled' },
    });
  });
});

describe('loopback API and app state', () => {
  it('runs the API on 127.0.0.1, reported by api/status, and remembers its port', async () => {
    const status = await call('api/status', {});
    expect(status.value.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(status.value.running).toBe(true);
    expect(running.settings.get('api.port')).toBe(running.server.listeningPort);
    expect((await fetch(`${status.value.url}/api/health`)).status).toBe(200);
  });

  it('keeps app state in userData and remembers the dataset it opened', () => {
    expect(running.core.homeDir).toBe(home);
    expect(running.settings.get('dataset.last')).toBe(inject('datasetPath'));
  });
});

describe('second instance and quit', () => {
  it('focuses the existing window when a second instance starts', () => {
    app.emit('second-instance');
    expect(win.focus).toHaveBeenCalled();
  });

  it('on quit, cancels exports and closes the server and the core before letting Electron quit', async () => {
    const url = running.server.url;
    let prevented = false;
    app.emit('before-quit', { preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    await running.shutdown();
    await new Promise((r) => setImmediate(r));
    expect(app.quit).toHaveBeenCalled();
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
    expect(running.core.appState.open).toBe(false);
  });
});
