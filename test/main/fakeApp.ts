// Starts the real main process (lifecycle.startApp) against the stand-in electron module, with its
// own app-data folder and the shared test dataset; each main-process test file boots one. The test
// file itself must mock electron (`vi.mock('electron', …)`, hoisted per file) before calling this.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningApp } from '../../src/main/lifecycle';
import { ensureBuilt } from '../packaging/ensureBuilt';
import { ipcMain, state, type FakeBrowserWindow } from './fakeElectron';

export interface FakeApp {
  running: RunningApp;
  win: FakeBrowserWindow;
  home: string;
  /** An IPC call from our own window's main frame, answered with the envelope. */
  call(channel: string, input: unknown, event?: unknown): Promise<any>;
  stop(): Promise<void>;
}

export async function startFakeApp(datasetPath: string): Promise<FakeApp> {
  await ensureBuilt();
  const home = mkdtempSync(join(tmpdir(), 'audience-desk-main-'));
  state.userData = home;
  const { startApp } = await import('../../src/main/lifecycle');
  const running = (await startApp({ datasetPath }))!;
  const win = state.windows[0]!;
  const trusted = () => ({ sender: win.webContents, senderFrame: win.webContents.mainFrame });
  return {
    running,
    win,
    home,
    call: (channel, input, event = trusted()) => ipcMain.invoke(channel, event, input),
    async stop() {
      await running.shutdown();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
