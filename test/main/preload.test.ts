// The preload bridge: window.audienceDesk holds exactly the contract's operations (plus the desktop
// extras), each an invoke on the channel of the same name, unwrapping envelopes; failures keep
// their code, which an Error would lose crossing contextBridge.
import { describe, expect, it, vi } from 'vitest';
import { OPERATION_NAMES } from '../../src/shared/contract';
import { DESKTOP_CHANNELS } from '../../src/shared/desktopExtras';
import { exposed, ipcRenderer } from './fakeElectron';

vi.mock('electron', async () => await import('./fakeElectron'));

async function loadPreload(): Promise<Record<string, (input?: unknown) => Promise<unknown>>> {
  await import('../../src/preload/index');
  expect(exposed).toHaveLength(1);
  const [key, api] = exposed[0]!;
  expect(key).toBe('audienceDesk');
  return api;
}

describe('preload', () => {
  it('exposes exactly the contract operations and the desktop extras', async () => {
    const api = await loadPreload();
    expect(Object.keys(api).sort()).toEqual([...OPERATION_NAMES, 'showInFolder'].sort());
    expect(Object.values(api).every((f) => typeof f === 'function')).toBe(true);
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('invokes the channel named after the operation and unwraps the value', async () => {
    const api = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: { total: 12, ms: 0.4 } });
    await expect(api['audience/count']!({ state: 'CA', filters: [] })).resolves.toEqual({ total: 12, ms: 0.4 });
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('audience/count', { state: 'CA', filters: [] });
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: [] });
    await api['keys/list']!();
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('keys/list', {});
  });

  it('rejects with the error code, message and field', async () => {
    const api = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({
      ok: false,
      error: { code: 'invalid_request', message: 'Unknown state "XX".', field: 'state' },
    });
    await expect(api['audience/count']!({ state: 'XX', filters: [] })).rejects.toEqual({
      name: 'AudienceDeskError',
      code: 'invalid_request',
      message: 'Unknown state "XX".',
      field: 'state',
    });
  });

  it('showInFolder goes to its own channel with { path }', async () => {
    const api = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: null });
    await expect(api.showInFolder!('/x/y.csv')).resolves.toBeUndefined();
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith(DESKTOP_CHANNELS.showInFolder, { path: '/x/y.csv' });
  });
});
