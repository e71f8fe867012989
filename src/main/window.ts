// The one window: secure web preferences (context isolation, sandbox, no Node, web security), the
// remembered size, and the renderer loaded from app://audience-desk/ (the app's own files, served by
// src/main/appScheme.ts; never file://) or from electron-vite's dev server in development.
import { BrowserWindow, screen } from 'electron';
import { preloadPath, rendererUrl, type AppLocation } from './appPaths';
import { hardenWebContents } from './security';
import type { Settings, WindowBounds } from './settings';

/** Remembered bounds, unless the screen they were on is gone (then only the size is kept). */
function usableBounds(bounds: WindowBounds): WindowBounds {
  if (bounds.x === undefined || bounds.y === undefined) return { width: bounds.width, height: bounds.height };
  const visible = screen
    .getAllDisplays()
    .some(({ workArea: a }) => bounds.x! >= a.x - 50 && bounds.y! >= a.y - 50 && bounds.x! < a.x + a.width && bounds.y! < a.y + a.height);
  return visible ? bounds : { width: bounds.width, height: bounds.height };
}

export function createMainWindow(loc: AppLocation, settings: Settings): BrowserWindow {
  const win = new BrowserWindow({
    ...usableBounds(settings.get('window.bounds')),
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Audience Desk',
    backgroundColor: '#ffffff',
    // Written out literally (not spread from a constant) so a reader and static checkers such as
    // electronegativity see each setting where the window is made.
    webPreferences: {
      preload: preloadPath(loc),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // A middle click would otherwise open a link in a new window (auxclick).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  hardenWebContents(win.webContents);
  win.once('ready-to-show', () => win.show());
  win.on('close', () => {
    if (!win.isMinimized() && !win.isMaximized() && !win.isFullScreen()) settings.set('window.bounds', win.getBounds());
  });
  void win.loadURL(rendererUrl(loc));
  return win;
}
