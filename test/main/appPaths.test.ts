// Where the app finds its files, development and packaged, and the settings it remembers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLED_FILE_NAME as CLI_NAME } from '../../src/cli/bundledDataset';
import { openAppState } from '../../src/core/appState/appStateDb';
import {
  BUNDLED_FILE_NAME,
  bundledDatasetPath,
  isAllowedRequest,
  isAppUrl,
  rendererRootPath,
  rendererUrl,
  type AppLocation,
} from '../../src/main/appPaths';
import { SETTING_DEFAULTS, Settings } from '../../src/main/settings';

const packaged: AppLocation = {
  isPackaged: true,
  appPath: '/opt/Audience Desk/resources/app.asar',
  resourcesPath: '/opt/Audience Desk/resources',
};
const dev: AppLocation = {
  isPackaged: false,
  appPath: '/src/audience-desk',
  resourcesPath: '/unused',
  devServerUrl: 'http://localhost:5173',
};

describe('app paths', () => {
  it('finds the bundled dataset in resources/ when packaged and in the project in development', () => {
    expect(BUNDLED_FILE_NAME).toBe(CLI_NAME);
    expect(readFileSync('electron-builder.yml', 'utf8')).toContain(`resources/${BUNDLED_FILE_NAME}`);
    expect(bundledDatasetPath(packaged)).toBe(join('/opt/Audience Desk/resources', BUNDLED_FILE_NAME));
    expect(bundledDatasetPath({ ...dev, devServerUrl: undefined })).toBe(join('/src/audience-desk/resources', BUNDLED_FILE_NAME));
  });

  it('loads app://audience-desk/index.html when packaged or previewing, the dev server only in development', () => {
    const preview: AppLocation = { ...dev, devServerUrl: undefined };
    expect(rendererUrl(packaged)).toBe('app://audience-desk/index.html');
    expect(rendererUrl(preview)).toBe('app://audience-desk/index.html');
    // A packaged app ignores ELECTRON_RENDERER_URL.
    expect(rendererUrl({ ...packaged, devServerUrl: 'http://localhost:5173' })).toBe('app://audience-desk/index.html');
    expect(rendererUrl(dev)).toBe('http://localhost:5173');
    expect(rendererRootPath(packaged)).toBe('/opt/Audience Desk/resources/app.asar/out/renderer');
  });

  it('knows our page: app://audience-desk/index.html, or the dev server origin; never a file: URL', () => {
    const index = 'app://audience-desk/index.html';
    expect(isAppUrl(packaged, index)).toBe(true);
    expect(isAppUrl(packaged, `${index}?x=1#/a`)).toBe(true);
    expect(isAppUrl(packaged, index.replace('index.html', 'evil.html'))).toBe(false);
    expect(isAppUrl(packaged, 'app://evil.example/index.html')).toBe(false);
    expect(isAppUrl(packaged, 'app://x@audience-desk/index.html')).toBe(false);
    expect(isAppUrl(packaged, 'app://audience-desk:1/index.html')).toBe(false);
    const fileIndex = pathToFileURL('/opt/Audience Desk/resources/app.asar/out/renderer/index.html').href;
    expect(isAppUrl(packaged, fileIndex)).toBe(false);
    expect(isAppUrl(dev, fileIndex)).toBe(false);
    expect(isAppUrl(packaged, 'https://evil.example/')).toBe(false);
    expect(isAppUrl(packaged, 'not a url')).toBe(false);
    expect(isAppUrl(dev, 'http://localhost:5173/')).toBe(true);
    expect(isAppUrl(dev, 'http://localhost:5174/')).toBe(false);
    expect(isAllowedRequest(dev, 'ws://localhost:5173/')).toBe(true);
    expect(isAllowedRequest(packaged, 'http://localhost:5173/')).toBe(false);
    expect(isAllowedRequest(packaged, 'file:///opt/Audience%20Desk/resources/app.asar/out/main/index.js')).toBe(false);
    // file: is not allowed at all any more, not even for the renderer's own files.
    expect(isAllowedRequest(packaged, 'file:///opt/Audience%20Desk/resources/app.asar/out/renderer/index.html')).toBe(false);
    expect(isAllowedRequest(packaged, 'file:///opt/Audience%20Desk/resources/app.asar/out/renderer/assets/index.js')).toBe(false);
    expect(isAllowedRequest(dev, 'file:///src/audience-desk/out/renderer/index.html')).toBe(false);
    expect(isAllowedRequest(packaged, 'app://audience-desk/assets/index-abc.js')).toBe(true);
    expect(isAllowedRequest(packaged, 'app://other/assets/index-abc.js')).toBe(false);
    expect(isAllowedRequest(packaged, 'devtools://devtools/bundled/inspector.html')).toBe(true);
  });
});

describe('settings', () => {
  it('stores values, and falls back to defaults for missing or damaged ones', () => {
    const home = mkdtempSync(join(tmpdir(), 'audience-desk-settings-'));
    const db = openAppState(home);
    try {
      const s = new Settings(db);
      expect(s.get('window.bounds')).toEqual(SETTING_DEFAULTS['window.bounds']);
      s.set('window.bounds', { width: 1000, height: 700, x: 5, y: 6 });
      s.set('api.port', 8123);
      expect(s.get('window.bounds')).toEqual({ width: 1000, height: 700, x: 5, y: 6 });
      expect(s.get('api.port')).toBe(8123);
      s.set('api.port', 70000);
      expect(s.get('api.port')).toBe(8123);
      db.prepare("UPDATE settings SET value = '{broken' WHERE key = 'window.bounds'").run();
      db.prepare("INSERT INTO settings (key, value) VALUES ('dataset.last', '42')").run();
      expect(s.get('window.bounds')).toEqual(SETTING_DEFAULTS['window.bounds']);
      expect(s.get('dataset.last')).toBeNull();
    } finally {
      db.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
