// @vitest-environment happy-dom
// The export store against an in-memory fake: start, follow the job until it ends, cancel, and a
// cancel reported as an error shown as a cancel. (That a real export writes `total` rows: test/e2e.)
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { ExportJob } from '../../src/shared/contract';
import { BridgeError, setBridge } from '../../src/renderer/src/bridge';
import { useAudienceStore } from '../../src/renderer/src/stores/audience';
import { POLL_MS } from '../../src/renderer/src/lib/jobProgress';
import { useExportStore } from '../../src/renderer/src/stores/exportJob';
import { fakeBridge } from './support/fakeBridge';

const job = (over: Partial<ExportJob>): ExportJob => ({
  id: 'j1',
  status: 'running',
  format: 'csv',
  path: '/home/x/exports/audience.csv',
  written: 0,
  total: 1000,
  recordsPerSecond: 0,
  secondsLeft: null,
  ...over,
});

beforeEach(() => {
  setActivePinia(createPinia());
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  // A timer left by the test (the count's debounce) must never reach a real transport.
  setBridge(fakeBridge());
});

describe('export store', () => {
  it('asks for the CSV header the user chose (names by default), and none for JSON Lines', async () => {
    const bridge = fakeBridge({ 'export/start': () => job({ status: 'done' }) });
    setBridge(bridge);
    useAudienceStore().load({ state: 'CA', filters: [] });
    const exp = useExportStore();
    await exp.start();
    expect(bridge['export/start']).toHaveBeenLastCalledWith({ state: 'CA', filters: [], format: 'csv', header: 'names' });
    exp.header = 'both';
    await exp.start();
    expect(bridge['export/start']).toHaveBeenLastCalledWith({ state: 'CA', filters: [], format: 'csv', header: 'both' });
  });

  it('starts with the committed audience and polls until the job is done', async () => {
    const steps = [job({ written: 400, recordsPerSecond: 1600, secondsLeft: 0.4 }), job({ status: 'done', written: 1000 })];
    const bridge = fakeBridge({ 'export/start': () => job({}), 'export/status': () => steps.shift()! });
    setBridge(bridge);
    useAudienceStore().load({ state: 'CA', filters: [['GENDER', ['F']]] });
    const exp = useExportStore();
    exp.format = 'jsonl';
    await exp.start();
    expect(bridge['export/start']).toHaveBeenCalledWith({ state: 'CA', filters: [['GENDER', ['F']]], format: 'jsonl' });
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(exp.job?.written).toBe(400);
    expect(exp.running).toBe(true);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(exp.job?.status).toBe('done');
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(bridge['export/status']).toHaveBeenCalledTimes(2);
    expect(exp.canShowInFolder).toBe(false);
  });

  it('cancels a running job and stops polling', async () => {
    const bridge = fakeBridge({
      'export/start': () => job({}),
      'export/status': () => job({ written: 10 }),
      'export/cancel': () => job({ status: 'cancelled', written: 10 }),
    });
    setBridge(bridge);
    useAudienceStore().load({ state: 'TX', filters: [] });
    const exp = useExportStore();
    await exp.start();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await exp.cancel();
    expect(exp.job?.status).toBe('cancelled');
    const polls = bridge['export/status'].mock.calls.length;
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(bridge['export/status'].mock.calls.length).toBe(polls);
  });

  it('shows a job the back end reports as cancelled as a cancelled export, not as an error', async () => {
    const bridge = fakeBridge({
      'export/start': () => job({}),
      'export/status': () => Promise.reject(new BridgeError('cancelled', 'The export was cancelled.')),
    });
    setBridge(bridge);
    useAudienceStore().load({ state: 'TX', filters: [] });
    const exp = useExportStore();
    await exp.start();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(exp.job?.status).toBe('cancelled');
    expect(exp.error).toBeNull();
    expect(exp.running).toBe(false);
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(bridge['export/status']).toHaveBeenCalledTimes(1);
  });

  it('shows any other failure to follow the job as an error', async () => {
    const bridge = fakeBridge({
      'export/start': () => job({}),
      'export/status': () => Promise.reject(new BridgeError('invalid_request', 'No such job.')),
    });
    setBridge(bridge);
    useAudienceStore().load({ state: 'TX', filters: [] });
    const exp = useExportStore();
    await exp.start();
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(exp.error).toBe('That request is not valid: No such job.');
    expect(bridge['export/status']).toHaveBeenCalledTimes(1);
  });

  it('says nothing went wrong when the export is stopped before it starts', async () => {
    setBridge(fakeBridge({ 'export/start': () => Promise.reject(new BridgeError('cancelled', 'The export was cancelled.')) }));
    useAudienceStore().load({ state: 'TX', filters: [] });
    const exp = useExportStore();
    await exp.start();
    expect(exp.error).toBeNull();
    expect(exp.job).toBeNull();
    expect(exp.running).toBe(false);
  });
});
