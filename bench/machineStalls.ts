// Moments when the machine itself runs slowly. On the virtual machines these benchmarks run on, a
// fixed piece of arithmetic on one thread, with nothing else running, now and then takes 3-12 times
// as long for 50-100 ms, on both cores at once, every few seconds, and the thread spent none of that
// time waiting for a core (Linux's /proc/thread-self/schedstat): it was on its core and the core ran
// slowly, so the time went to the host's other guests, not to another of our threads
// (docs/performance.md, "Stalls of the machine"). A state's first page (~5-9 ms) that meets such a
// moment takes 20-40 ms, which is the whole p95 of sixteen first pages.
//
// So a benchmark can run a canary beside its requests: a worker thread that every PERIOD_MS times
// ~PROBE_MS of the same arithmetic, less the time it waited for a core (the kernel accounts a wait
// when the thread is back on a core, so it is exact by the probe's end; the thread's CPU time is
// not, being counted in ticks of 4 ms). A probe that took over SLOW_FACTOR times the run's median
// marks a stall, and a request whose time overlaps one (from the end of the normal probe before it
// to the start of the normal probe after it) is shown apart. The canary takes ~1-2% of one core.
// Where schedstat cannot be read (not Linux), a probe that waited for a core counts as slow too.
import { Worker } from 'node:worker_threads';

export const PERIOD_MS = 20;
export const PROBE_MS = 0.3;
export const SLOW_FACTOR = 3;

/** A probe: when it started (ms since the epoch, as performance.timeOrigin + performance.now()), its wall milliseconds and how many of them it waited for a core. */
export interface Probe {
  at: number;
  wallMs: number;
  /** NaN where the waits cannot be read. */
  waitMs: number;
}

/** The canary's thread: plain JavaScript (eval), so it starts the same through tsx or not. */
const CANARY_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { periodMs, probeMs } = workerData;
// The second of schedstat's numbers: nanoseconds this thread has waited for a core.
const waitedNow = () => {
  try { return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6; } catch { return NaN; }
};
const now = () => performance.timeOrigin + performance.now();
const table = new Float64Array(4096).map((_, i) => i % 13);
function work(n, x) { for (let i = 0; i < n; i++) x = (x + table[(i * 7) & 4095] + i) % 1e9; return x; }
// The work sized to ~probeMs once compiled: measured after a warm-up, the smallest of several tries.
let x = 0;
for (let k = 0; k < 50; k++) x = work(20000, x);
let best = Infinity;
for (let k = 0; k < 9; k++) { const t = performance.now(); x = work(20000, x); best = Math.min(best, performance.now() - t); }
const n = Math.max(1000, Math.round((20000 * probeMs) / Math.max(best, 1e-3)));
const probes = [];
let stopping = false;
parentPort.on('message', (m) => { if (m === 'stop') stopping = true; });
function tick() {
  if (stopping) {
    parentPort.postMessage(Float64Array.from(probes));
    return;
  }
  const waited = waitedNow();
  const t = now();
  x = work(n, x);
  const wall = now() - t;
  probes.push(t, wall, waitedNow() - waited);
  setTimeout(tick, periodMs);
}
tick();
if (x < 0) parentPort.postMessage('never');
`;

/** The probes of a canary that has stopped, and which of them were stalls. */
export class StallReport {
  /** The median time of a probe, less its waits for a core. */
  readonly medianMs: number;
  /** The start and end (ms since the epoch) of each stall: from the normal probe before it to the normal probe after it. */
  readonly windows: Array<{ from: number; to: number }> = [];
  readonly slowProbes: number;

  constructor(readonly probes: readonly Probe[]) {
    const cost = (p: Probe): number => (Number.isNaN(p.waitMs) ? p.wallMs : p.wallMs - p.waitMs);
    const sorted = probes.map(cost).sort((a, b) => a - b);
    this.medianMs = sorted[Math.floor(sorted.length / 2)] ?? NaN;
    const slow = probes.map((p) => cost(p) > SLOW_FACTOR * this.medianMs);
    this.slowProbes = slow.filter(Boolean).length;
    for (let k = 0; k < probes.length; k++) {
      if (!slow[k]) continue;
      let last = k;
      while (last + 1 < probes.length && slow[last + 1]) last++;
      const before = probes[k - 1];
      const after = probes[last + 1];
      const from = before ? before.at + before.wallMs : probes[k]!.at;
      const to = after ? after.at : probes[last]!.at + probes[last]!.wallMs;
      this.windows.push({ from, to });
      k = last;
    }
  }

  /** Whether a stall overlaps the time from `from` to `to` (ms since the epoch). */
  overlaps(from: number, to: number): boolean {
    return this.windows.some((w) => w.from < to && w.to > from);
  }

  /** The stalls that began between `from` and `to`, and the milliseconds their windows cover there. */
  between(from: number, to: number): { stalls: number; ms: number } {
    let stalls = 0;
    let ms = 0;
    for (const w of this.windows)
      if (w.from < to && w.to > from) {
        stalls++;
        ms += Math.min(w.to, to) - Math.max(w.from, from);
      }
    return { stalls, ms };
  }
}

/** The canary's thread, probing until stop(). */
export class StallCanary {
  private constructor(private readonly worker: Worker) {}

  static start(periodMs = PERIOD_MS, probeMs = PROBE_MS): StallCanary {
    return new StallCanary(new Worker(CANARY_SOURCE, { eval: true, workerData: { periodMs, probeMs } }));
  }

  /** Stops probing; the report of every probe since start. */
  async stop(): Promise<StallReport> {
    const answer = new Promise<Float64Array>((resolve, reject) => {
      this.worker.once('message', resolve);
      this.worker.once('error', reject);
    });
    this.worker.postMessage('stop');
    const flat = await answer;
    await this.worker.terminate();
    const probes: Probe[] = [];
    for (let k = 0; k + 2 < flat.length; k += 3) probes.push({ at: flat[k]!, wallMs: flat[k + 1]!, waitMs: flat[k + 2]! });
    return new StallReport(probes);
  }
}

/** "now" on the clock the canary's probes use (ms since the epoch), for a request's start and end. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/** A request's time: its start and end on the canary's clock, and its milliseconds as measured. */
export interface Span {
  from: number;
  to: number;
  ms: number;
}

/** The milliseconds of the spans no stall overlapped, and how many a stall did overlap. */
export function apartFromStalls(spans: readonly Span[], report: StallReport): { clear: number[]; overlapped: number } {
  const clear: number[] = [];
  let overlapped = 0;
  for (const s of spans)
    if (report.overlaps(s.from, s.to)) overlapped++;
    else clear.push(s.ms);
  return { clear, overlapped };
}
