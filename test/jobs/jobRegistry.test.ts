// The job registry's contract, which import and export jobs rely on: ids and views, outcomes
// (done, failed with a message, cancelled), the completion callback before `settled`, idle() for
// a subset, cancelAll() waiting for every job, and forgetting old finished jobs.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/shared/errors';
import { JobRegistry, type JobOutcome, type JobView } from '../../src/core/jobs/jobRegistry';

interface View extends JobView {
  name: string;
}

const until = (signal: AbortSignal): Promise<void> =>
  new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));

function registry(keepFinished?: number) {
  const ended: Array<[string, JobOutcome]> = [];
  const jobs = new JobRegistry<View, { tag: string }>({
    noun: 'test',
    genericFailure: 'It failed.',
    keepFinished,
    onEnded: (job, outcome) => ended.push([job.view.name, outcome]),
  });
  const start = (name: string, work: (signal: AbortSignal) => Promise<void>, tag = '') =>
    jobs.start(
      (id) => ({ id, status: 'running', name }),
      { tag },
      (job) => work(job.signal),
    );
  return { jobs, ended, start };
}

describe('JobRegistry', () => {
  it('ends jobs done, failed (AppError message or the generic one) or cancelled, audited before settled', async () => {
    const { jobs, ended, start } = registry();
    const done = start('done', async () => undefined);
    const bad = start('bad', async () => Promise.reject(new AppError('invalid_request', 'Bad input.')));
    const odd = start('odd', () => {
      throw new Error('secret detail');
    });
    const stopped = start('stopped', until);
    expect(jobs.get(stopped.view.id).view.status).toBe('running');
    expect(jobs.cancel(stopped.view.id).view.name).toBe('stopped');
    await Promise.all([done, bad, odd, stopped].map((j) => j.settled));
    expect([done, bad, odd, stopped].map((j) => [j.view.status, j.view.error])).toEqual([
      ['done', undefined],
      ['failed', 'Bad input.'],
      ['failed', 'It failed.'],
      ['cancelled', undefined],
    ]);
    expect(ended.sort()).toEqual([
      ['bad', 'failed'],
      ['done', 'done'],
      ['odd', 'failed'],
      ['stopped', 'cancelled'],
    ]);
    expect(() => jobs.get('nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('leaves a job running when cancel comes too late, and waits for a subset or for all', async () => {
    const { jobs, start } = registry();
    const a = start('a', until, 'old');
    const b = start('b', until, 'new');
    jobs.cancel(a.view.id, () => true);
    expect(a.view.status).toBe('running');
    expect(jobs.running((j) => j.data.tag === 'old')).toEqual([a]);
    expect(jobs.latest()).toBe(b);
    jobs.cancel(a.view.id);
    await jobs.idle((j) => j.data.tag === 'old');
    expect([a.view.status, b.view.status]).toEqual(['cancelled', 'running']);
    await jobs.cancelAll();
    expect(b.view.status).toBe('cancelled');
  });

  it('forgets the oldest finished jobs beyond keepFinished, never a running one', async () => {
    const { jobs, start } = registry(2);
    const running = start('running', until);
    const finished: Array<ReturnType<typeof start>> = [];
    for (let i = 0; i < 4; i++) {
      const job = start(`f${i}`, async () => undefined);
      await job.settled;
      finished.push(job);
    }
    start('last', async () => undefined);
    expect(() => jobs.get(finished[0]!.view.id)).toThrow();
    expect(() => jobs.get(finished[1]!.view.id)).toThrow();
    expect(jobs.get(finished[3]!.view.id)).toBe(finished[3]);
    expect(jobs.get(running.view.id)).toBe(running);
    await jobs.cancelAll();
  });
});
