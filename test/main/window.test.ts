// The window of a packaged app (app.isPackaged true), which main.test.ts (electron-vite preview)
// cannot be: it must load app://audience-desk/index.html, never a file: URL, and ignore a dev-server
// address left in the environment.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openAppState } from '../../src/core/appState/appStateDb';
import type { AppLocation } from '../../src/main/appPaths';
import { Settings } from '../../src/main/settings';
import { createMainWindow } from '../../src/main/window';

vi.mock('electron', async () => await import('./fakeElectron'));

let home: string;
let db: ReturnType<typeof openAppState>;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'audience-desk-window-'));
  db = openAppState(home);
});
afterAll(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

describe('packaged window', () => {
  it('loads our page from app://, with the preload from inside the asar', () => {
    const packaged: AppLocation = {
      isPackaged: true,
      appPath: '/opt/Audience Desk/resources/app.asar',
      resourcesPath: '/opt/Audience Desk/resources',
      devServerUrl: 'http://localhost:5173',
    };
    const win = createMainWindow(packaged, new Settings(db)) as unknown as { loaded: { file?: string; url?: string }; options: any };
    expect(win.loaded).toEqual({ url: 'app://audience-desk/index.html' });
    expect(win.options.webPreferences.preload).toBe('/opt/Audience Desk/resources/app.asar/out/preload/index.cjs');
  });

  it('loads the dev server in development', () => {
    const dev: AppLocation = {
      isPackaged: false,
      appPath: '/src/audience-desk',
      resourcesPath: '/unused',
      devServerUrl: 'http://localhost:5173',
    };
    const win = createMainWindow(dev, new Settings(db)) as unknown as { loaded: { file?: string; url?: string } };
    expect(win.loaded).toEqual({ url: 'http://localhost:5173' });
  });
});
