// The desktop import's wiring, with a stand-in electron module and the real core: files come only
// from the OS open dialog (for our window), the new dataset becomes current and is remembered for
// the next start, and "Show in folder" reveals the import's rejects file but nothing else.
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { RunningApp } from '../../src/main/lifecycle';
import { DESKTOP_CHANNELS } from '../../src/shared/desktopExtras';
import type { ImportJob } from '../../src/shared/contract';
import { fixture } from '../import/helpers';
import { startFakeApp, type FakeApp } from './fakeApp';
import { dialog, shell, state, type FakeBrowserWindow } from './fakeElectron';

vi.mock('electron', async () => await import('./fakeElectron'));

let desk: FakeApp;
let running: RunningApp;
let win: FakeBrowserWindow;

beforeAll(async () => {
  desk = await startFakeApp(inject('datasetPath'));
  ({ running, win } = desk);
});
afterAll(() => desk?.stop());

const call = async (channel: string, input: unknown): Promise<any> => {
  const envelope = await desk.call(channel, input);
  if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), envelope.error);
  return envelope.value;
};

describe('import in the desktop app', () => {
  it('picks files with the OS open dialog, over our window; dismissing it picks nothing', async () => {
    state.openDialogAnswer = null;
    expect(await call('import/pick', {})).toEqual({ files: [], inbox: null });
    state.openDialogAnswer = [fixture('missing-and-extra.csv'), fixture('bad-rows.csv')];
    expect(await call('import/pick', {})).toEqual({ files: state.openDialogAnswer, inbox: null });
    const [parent, options] = dialog.showOpenDialog.mock.calls.at(-1) as unknown as [unknown, { properties: string[] }];
    expect(parent).toBe(win);
    expect(options.properties).toEqual(['openFile', 'multiSelections']);
  });

  it('switches to the imported dataset and remembers it for the next start', async () => {
    const files = [fixture('missing-and-extra.csv'), fixture('bad-rows.csv')];
    let job: ImportJob = await call('import/start', { files });
    // A real pause between polls: the import's worker reports through the event loop.
    while (job.status === 'running') {
      await new Promise((r) => setTimeout(r, 10));
      job = await call('import/status', { id: job.id });
      // The import asks before switching; the user says switch.
      if (job.phase === 'confirm') job = await call('import/confirm', { id: job.id, switch: true });
    }
    expect(job.status, job.error).toBe('done');
    expect((await call('dataset/info', {})).path).toBe(job.result!.dataset);
    expect(running.settings.get('dataset.last')).toBe(job.result!.dataset);

    // The rejects file of this import may be revealed; another file may not.
    await call(DESKTOP_CHANNELS.showInFolder, { path: job.result!.rejectsPath });
    expect(shell.showItemInFolder).toHaveBeenLastCalledWith(job.result!.rejectsPath);
    await expect(call(DESKTOP_CHANNELS.showInFolder, { path: job.result!.dataset })).rejects.toMatchObject({ code: 'forbidden' });
  });
});
