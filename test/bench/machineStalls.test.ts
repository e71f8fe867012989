// The benches' stall canary (bench/machineStalls.ts): which probes are stalls of the machine (slow,
// but not for waiting for a core), the window each stall covers, and the requests it overlaps; and
// the canary's real thread gives back timed probes.
import { expect, it } from 'vitest';
import { apartFromStalls, PERIOD_MS, StallCanary, StallReport, type Probe } from '../../bench/machineStalls';

/** Probes every 20 ms from t=1000, 0.3 ms each, but those given: [index, wall ms, wait ms]. */
function probes(special: Array<[number, number, number]>, count = 20): Probe[] {
  const out: Probe[] = Array.from({ length: count }, (_, k) => ({ at: 1000 + k * PERIOD_MS, wallMs: 0.3, waitMs: 0 }));
  for (const [k, wallMs, waitMs] of special) out[k] = { ...out[k]!, wallMs, waitMs };
  return out;
}

it('marks a slow probe as a stall, but not one that was slow for waiting for a core', () => {
  const report = new StallReport(
    probes([
      [5, 2.0, 0],
      [9, 2.5, 2.2],
    ]),
  );
  expect(report.medianMs).toBeCloseTo(0.3);
  expect(report.slowProbes).toBe(1);
  // From the end of probe 4 to the start of probe 6.
  expect(report.windows).toEqual([{ from: 1000 + 4 * PERIOD_MS + 0.3, to: 1000 + 6 * PERIOD_MS }]);
});

it('makes one window of slow probes in a row, and one that runs to the end of the probes', () => {
  const report = new StallReport(
    probes([
      [3, 1.5, 0],
      [4, 4.0, 0.1],
      [5, 1.2, 0],
      [19, 3.0, 0],
    ]),
  );
  expect(report.slowProbes).toBe(4);
  expect(report.windows).toEqual([
    { from: 1000 + 2 * PERIOD_MS + 0.3, to: 1000 + 6 * PERIOD_MS },
    { from: 1000 + 18 * PERIOD_MS + 0.3, to: 1000 + 19 * PERIOD_MS + 3.0 },
  ]);
});

it('uses the wall clock alone where the waits cannot be read', () => {
  const report = new StallReport(probes([[7, 2.0, 0]]).map((p) => ({ ...p, waitMs: NaN })));
  expect(report.slowProbes).toBe(1);
});

it('says which requests a stall overlapped, and how much of a stretch the stalls covered', () => {
  const report = new StallReport(probes([[5, 2.0, 0]]));
  const { from, to } = report.windows[0]!;
  const spans = [
    { from: from - 10, to: from - 1, ms: 9 }, // ends before the stall
    { from: from - 1, to: from + 1, ms: 2 }, // runs into it
    { from: to - 1, to: to + 5, ms: 6 }, // runs out of it
    { from: to + 1, to: to + 3, ms: 2 }, // after it
  ];
  expect(spans.map((s) => report.overlaps(s.from, s.to))).toEqual([false, true, true, false]);
  expect(apartFromStalls(spans, report)).toEqual({ clear: [9, 2], overlapped: 2 });
  expect(report.between(0, 1e9)).toEqual({ stalls: 1, ms: to - from });
  expect(report.between(from + 5, from + 10)).toEqual({ stalls: 1, ms: 5 });
  expect(report.between(to, to + 100)).toEqual({ stalls: 0, ms: 0 });
});

it('probes on its own thread until stopped, one probe a period', async () => {
  const started = performance.timeOrigin + performance.now();
  const canary = StallCanary.start();
  await new Promise((resolve) => setTimeout(resolve, 400));
  const report = await canary.stop();
  expect(report.probes.length).toBeGreaterThanOrEqual(5);
  expect(report.probes.length).toBeLessThanOrEqual(400 / PERIOD_MS + 2);
  for (const [k, p] of report.probes.entries()) {
    expect(p.at).toBeGreaterThanOrEqual(started - 1);
    expect(p.wallMs).toBeGreaterThan(0);
    if (k > 0) expect(p.at).toBeGreaterThan(report.probes[k - 1]!.at);
    if (process.platform === 'linux') expect(Number.isFinite(p.waitMs)).toBe(true);
  }
});
