// The job-progress loop both job stores share, on fake timers: it follows a job until it ends, never
// has two status requests under way, drops answers for a job it no longer follows, and takes a
// `cancelled` error as the job's outcome rather than a failure.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BridgeError } from '../../src/renderer/src/bridge';
import { followJobs, POLL_MS, type JobView } from '../../src/renderer/src/lib/jobProgress';
import { deferred } from './support/fakeBridge';

interface Job extends JobView {
  step: number;
}
const view = (id: string, step: number, status: Job['status'] = 'running'): Job => ({ id, step, status });

function harness(
  status: (id: string) => Promise<Job> | Job,
  cancel: (id: string) => Promise<Job> | Job = (id) => view(id, -1, 'cancelled'),
) {
  const updates: Job[] = [];
  const errors: unknown[] = [];
  const statusFn = vi.fn(async (id: string) => status(id));
  const cancelFn = vi.fn(async (id: string) => cancel(id));
  const progress = followJobs<Job>({
    status: statusFn,
    cancel: cancelFn,
    onUpdate: (j) => void updates.push(j),
    onError: (e) => void errors.push(e),
  });
  return { progress, statusFn, cancelFn, updates, errors };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('job progress', () => {
  it('asks every POLL_MS until the job leaves running, then asks no more', async () => {
    const answers = [view('a', 1), view('a', 2), view('a', 3, 'done')];
    const h = harness(() => answers.shift()!);
    h.progress.follow(view('a', 0));
    expect(h.progress.followedId).toBe('a');
    await vi.advanceTimersByTimeAsync(POLL_MS - 1);
    expect(h.statusFn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(h.statusFn).toHaveBeenCalledWith('a');
    await vi.advanceTimersByTimeAsync(POLL_MS * 2);
    expect(h.updates.map((u) => [u.step, u.status])).toEqual([
      [1, 'running'],
      [2, 'running'],
      [3, 'done'],
    ]);
    await vi.advanceTimersByTimeAsync(POLL_MS * 10);
    expect(h.statusFn).toHaveBeenCalledTimes(3);
    expect(h.progress.followedId).toBeNull();
    expect(h.errors).toEqual([]);
  });

  it('does not follow a job that has already ended', async () => {
    const h = harness(() => view('a', 1));
    h.progress.follow(view('', 0, 'cancelled'));
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(h.statusFn).not.toHaveBeenCalled();
  });

  it('never has two status requests under way, however slow the answer', async () => {
    const slow = deferred<Job>();
    const h = harness(() => slow.promise);
    h.progress.follow(view('a', 0));
    await vi.advanceTimersByTimeAsync(POLL_MS * 10);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
    slow.resolve(view('a', 1));
    await vi.advanceTimersByTimeAsync(0);
    expect(h.updates.map((u) => u.step)).toEqual([1]);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(h.statusFn).toHaveBeenCalledTimes(2);
  });

  it('follows a newer job in place of the old one and drops the old one’s late answer', async () => {
    const old = deferred<Job>();
    const h = harness((id) => (id === 'a' ? old.promise : view('b', 1, 'done')));
    h.progress.follow(view('a', 0));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(h.statusFn).toHaveBeenLastCalledWith('a');
    h.progress.follow(view('b', 0));
    expect(h.progress.followedId).toBe('b');
    // The request for 'a' is still under way: the first poll for 'b' waits for it.
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
    old.resolve(view('a', 1));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(h.statusFn).toHaveBeenLastCalledWith('b');
    expect(h.updates.map((u) => u.id)).toEqual(['b']);
  });

  it('stops: no more requests, and an answer under way is dropped', async () => {
    const slow = deferred<Job>();
    const h = harness(() => slow.promise);
    h.progress.follow(view('a', 0));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    h.progress.stop();
    expect(h.progress.followedId).toBeNull();
    slow.resolve(view('a', 1));
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
    expect(h.updates).toEqual([]);
  });

  it('reports a failed request once and stops asking; the job can still be cancelled', async () => {
    const failure = new BridgeError('unavailable', 'The server is stopping.');
    const h = harness(() => Promise.reject(failure));
    h.progress.follow(view('a', 0));
    await vi.advanceTimersByTimeAsync(POLL_MS * 5);
    expect(h.errors).toEqual([failure]);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
    await h.progress.cancel();
    expect(h.cancelFn).toHaveBeenCalledWith('a');
    expect(h.updates.map((u) => u.status)).toEqual(['cancelled']);
  });

  it('takes a cancelled error from status as the job’s outcome, not as an error', async () => {
    const h = harness(() => Promise.reject(new BridgeError('cancelled', 'The import was cancelled.')));
    h.progress.follow(view('a', 7));
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(h.errors).toEqual([]);
    expect(h.updates).toEqual([view('a', 7, 'cancelled')]);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
    expect(h.progress.followedId).toBeNull();
  });

  it('cancels: a job still winding down is followed until it says cancelled', async () => {
    const answers = [view('a', 2), view('a', 3, 'cancelled')];
    const h = harness(
      () => answers.shift()!,
      () => view('a', 1),
    );
    h.progress.follow(view('a', 0));
    await h.progress.cancel();
    expect(h.cancelFn).toHaveBeenCalledWith('a');
    expect(h.updates.map((u) => u.step)).toEqual([1]);
    await vi.advanceTimersByTimeAsync(POLL_MS * 6);
    expect(h.updates.map((u) => [u.step, u.status])).toEqual([
      [1, 'running'],
      [2, 'running'],
      [3, 'cancelled'],
    ]);
    expect(h.statusFn).toHaveBeenCalledTimes(2);
  });

  it('drops a status answer that arrives after the cancel’s, so a stopped job never reads running again', async () => {
    const slow = deferred<Job>();
    const h = harness(() => slow.promise);
    h.progress.follow(view('a', 0));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await h.progress.cancel();
    slow.resolve(view('a', 1));
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(h.updates.map((u) => u.status)).toEqual(['cancelled']);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
  });

  it('takes a cancelled error from cancel as the outcome too, and an ended job is not cancelled again', async () => {
    const h = harness(
      () => view('a', 1),
      () => Promise.reject(new BridgeError('cancelled', 'The export was cancelled.')),
    );
    h.progress.follow(view('a', 0));
    await h.progress.cancel();
    expect(h.updates.map((u) => u.status)).toEqual(['cancelled']);
    expect(h.errors).toEqual([]);
    await h.progress.cancel();
    expect(h.cancelFn).toHaveBeenCalledTimes(1);
  });

  it('keeps following a job whose cancel failed', async () => {
    const refused = new BridgeError('internal_error', 'No.');
    const h = harness(
      () => view('a', 1, 'done'),
      () => Promise.reject(refused),
    );
    h.progress.follow(view('a', 0));
    await h.progress.cancel();
    expect(h.errors).toEqual([refused]);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(h.updates.map((u) => u.status)).toEqual(['done']);
  });

  it('reports a failing update handler and still stops once the job ended', async () => {
    const h = harness(() => view('a', 1, 'done'));
    const boom = new Error('reload failed');
    const progress = followJobs<Job>({
      status: h.statusFn,
      cancel: h.cancelFn,
      onUpdate: () => Promise.reject(boom),
      onError: (e) => void h.errors.push(e),
    });
    progress.follow(view('a', 0));
    await vi.advanceTimersByTimeAsync(POLL_MS * 4);
    expect(h.errors).toEqual([boom]);
    expect(h.statusFn).toHaveBeenCalledTimes(1);
  });
});
