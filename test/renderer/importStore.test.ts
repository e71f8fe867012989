// @vitest-environment happy-dom
// The import store against an in-memory fake: it follows the job it started (or one already running
// when the screen opens), a cancel ends as a cancelled import and never as an error, and a finished
// import moves the desk onto the new dataset. (That a real import does so: test/e2e/import.test.ts.)
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { ImportJob } from '../../src/shared/contract';
import { BridgeError, setBridge } from '../../src/renderer/src/bridge';
import { POLL_MS } from '../../src/renderer/src/lib/jobProgress';
import { useImportStore } from '../../src/renderer/src/stores/importJob';
import { fakeBridge } from './support/fakeBridge';

const job = (over: Partial<ImportJob>): ImportJob => ({
  id: 'i1',
  status: 'running',
  phase: 'reading',
  files: ['/inbox/a.csv'],
  rowsRead: 0,
  rowsWritten: 0,
  bytesRead: 0,
  totalBytes: 1000,
  percent: 0,
  rowsPerSecond: 0,
  secondsLeft: null,
  notices: [],
  result: null,
  rejectsPath: null,
  ...over,
});

const plan = { files: [], ready: true };

/** A store with one file chosen and a plan that is ready, as the screen has it before Start. */
async function ready(impl: Parameters<typeof fakeBridge>[0]) {
  const bridge = fakeBridge({
    'import/pick': () => ({ files: ['/inbox/a.csv'], inbox: '/inbox' }),
    'import/inspect': () => plan,
    'import/start': () => job({}),
    ...impl,
  });
  setBridge(bridge);
  const imp = useImportStore();
  await imp.choose();
  return { bridge, imp };
}

beforeEach(() => {
  setActivePinia(createPinia());
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  setBridge(fakeBridge());
});

describe('import store', () => {
  it('follows the job it started until done, then reloads the dataset the desk answers from', async () => {
    const steps = [job({ rowsRead: 500, percent: 50 }), job({ status: 'done', phase: 'finished', percent: 100 })];
    const { bridge, imp } = await ready({ 'import/status': () => steps.shift()! });
    expect(imp.canStart).toBe(true);
    await imp.start();
    expect(imp.running).toBe(true);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(imp.job?.rowsRead).toBe(500);
    expect(bridge['dataset/info']).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(imp.job?.status).toBe('done');
    expect(bridge['dataset/info']).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(bridge['import/status']).toHaveBeenCalledTimes(2);
    expect(imp.error).toBeNull();
  });

  it('cancels: the job winding down is followed until it says cancelled, with no error', async () => {
    const { bridge, imp } = await ready({
      'import/status': () => job({ status: 'cancelled', phase: 'finished' }),
      'import/cancel': () => job({ rowsRead: 10 }),
    });
    await imp.start();
    await imp.cancel();
    expect(bridge['import/cancel']).toHaveBeenCalledWith({ id: 'i1' });
    expect(imp.job?.status).toBe('running');
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(imp.job?.status).toBe('cancelled');
    expect(imp.error).toBeNull();
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(bridge['import/status']).toHaveBeenCalledTimes(1);
    expect(bridge['dataset/info']).not.toHaveBeenCalled();
  });

  it('shows a cancelled error from the back end as a cancelled import, not "That request is not valid"', async () => {
    const { imp } = await ready({
      'import/status': () => Promise.reject(new BridgeError('cancelled', 'The import was cancelled.')),
    });
    await imp.start();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(imp.job?.status).toBe('cancelled');
    expect(imp.error).toBeNull();
    expect(imp.canStart).toBe(true);
  });

  it('picks up an import already running when the screen opens, and stops following on reset', async () => {
    const bridge = fakeBridge({
      'import/current': () => ({ job: job({ id: 'i9', files: ['/inbox/b.csv'] }) }),
      'import/status': () => job({ id: 'i9', rowsRead: 7 }),
    });
    setBridge(bridge);
    const imp = useImportStore();
    await imp.show();
    expect(imp.files).toEqual(['/inbox/b.csv']);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(bridge['import/status']).toHaveBeenCalledWith({ id: 'i9' });
    expect(imp.job?.rowsRead).toBe(7);
    imp.reset();
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(bridge['import/status']).toHaveBeenCalledTimes(1);
    expect(imp.job).toBeNull();
  });

  it('shows the plan of the last column choice when earlier inspections answer after it', async () => {
    // The first choice's inspection answers last, as a slow read of a large file would.
    const answers: Array<() => void> = [];
    const { imp } = await ready({});
    setBridge(
      fakeBridge({
        'import/inspect': (input: { columns?: Record<string, string> }) =>
          // Ready only once both columns are mapped, as a file missing PID and GENDER is.
          new Promise((resolve) => answers.push(() => resolve({ files: [], ready: Object.keys(input.columns ?? {}).length === 2 }))),
      }),
    );
    const first = imp.mapColumn('Person Key', 'PID');
    const second = imp.mapColumn('Sex', 'GENDER');
    answers[1]!();
    await second;
    answers[0]!();
    await first;
    expect(imp.plan?.ready).toBe(true);
    expect(imp.busy).toBe(false);
  });
});
