// Following a long job (an export, an import) until it ends. The contract has no progress events,
// so the job's status is asked for on a timer; both job stores follow their jobs through this one
// loop: one request at a time, answers for a job no longer followed dropped, a cancel an outcome.
import { isCancelled } from '../bridge';

export const POLL_MS = 250;

export interface JobView {
  id: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
}

export interface JobProgressOptions<J extends JobView> {
  /** The job's current view (export/status, import/status). */
  status: (id: string) => Promise<J>;
  /** Asks the back end to stop the job (export/cancel, import/cancel); answers its view. */
  cancel: (id: string) => Promise<J>;
  /** Each newer view of the followed job; the last one is no longer 'running'. Awaited. */
  onUpdate: (job: J) => void | Promise<void>;
  /** A request failed for another reason than a cancel. Polling stops; cancel() still works. */
  onError: (e: unknown) => void;
  intervalMs?: number;
}

export interface JobProgress<J extends JobView> {
  /** Follows this job from now on, in place of any job followed before. Nothing to do once it ended. */
  follow(job: J): void;
  /** Asks the followed job to stop; its answer (or a `cancelled` error) arrives through onUpdate. */
  cancel(): Promise<void>;
  /** Stops following: no more requests, and answers still under way are dropped. */
  stop(): void;
  /** The id of the job followed while it runs, else null. */
  readonly followedId: string | null;
}

export function followJobs<J extends JobView>(options: JobProgressOptions<J>): JobProgress<J> {
  const interval = options.intervalMs ?? POLL_MS;
  let job: J | null = null;
  // Bumped whenever the followed job changes or an answer under way must no longer count.
  let generation = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  // A status request under way (maybe for a job followed before): the next one waits for it.
  let polling = false;

  function clearTimer(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  }

  function schedule(): void {
    clearTimer();
    if (job?.status === 'running') timer = setTimeout(poll, interval);
  }

  function poll(): void {
    timer = null;
    if (polling) {
      schedule();
      return;
    }
    const mine = generation;
    polling = true;
    void settle(mine, options.status).finally(() => (polling = false));
  }

  /** One request about the followed job; its answer counts unless the job changed meanwhile. */
  async function settle(mine: number, request: (id: string) => Promise<J>): Promise<void> {
    const asked = job!;
    let next: J;
    try {
      next = await request(asked.id);
    } catch (e) {
      if (mine !== generation) return;
      if (!isCancelled(e)) {
        options.onError(e);
        return;
      }
      // The back end says the job was stopped: that is the job's outcome, not a failure.
      next = { ...asked, status: 'cancelled' };
    }
    if (mine !== generation) return;
    job = next;
    try {
      await options.onUpdate(next);
    } catch (e) {
      options.onError(e);
    }
    if (mine === generation) schedule();
  }

  return {
    follow(next: J): void {
      generation++;
      job = next;
      schedule();
    },
    async cancel(): Promise<void> {
      if (job?.status !== 'running') return;
      // A status answer under way could still say 'running' after the cancel's answer: drop it.
      const mine = ++generation;
      clearTimer();
      await settle(mine, options.cancel);
      // A cancel that failed leaves the job running: keep following it.
      if (mine === generation && timer === null) schedule();
    },
    stop(): void {
      generation++;
      job = null;
      clearTimer();
    },
    get followedId(): string | null {
      return job?.status === 'running' ? job.id : null;
    },
  };
}
