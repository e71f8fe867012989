// A second instance hands over to the first and quits before touching any state.
import { describe, expect, it, vi } from 'vitest';
import { app, ipcMain, state } from './fakeElectron';

vi.mock('electron', async () => await import('./fakeElectron'));

describe('single instance', () => {
  it('quits at once without the lock: no window, no IPC, no core', async () => {
    state.lock = false;
    const { startApp } = await import('../../src/main/lifecycle');
    expect(await startApp()).toBeNull();
    expect(app.requestSingleInstanceLock).toHaveBeenCalledTimes(1);
    expect(app.quit).toHaveBeenCalledTimes(1);
    expect(app.whenReady).not.toHaveBeenCalled();
    expect(ipcMain.handle).not.toHaveBeenCalled();
    expect(state.windows).toHaveLength(0);
  });
});
