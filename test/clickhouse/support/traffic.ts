// Requests kept coming at a ClickHouse core while something happens to its servers (a load and its
// switch, a node stopping), each answer compared with the embedded engine's answer to the same request.
import { expect } from 'vitest';

/** No request may wait longer than the slowest of the others by more than this while a load switches. */
export const LONGEST_WAIT_MS = 2_000;

export type Post = (path: string, body: unknown) => Promise<Response>;
export type Bodies = ReadonlyArray<readonly [string, unknown]>;

export interface Answer {
  at: number;
  ms: number;
  status: number;
  same: boolean;
}

/**
 * How long requests go on after `during` settles: the switch's end is known to the second and taken a
 * second later (expectNoWaitAcross's `to`), and some requests must start after it; 20 requests alone
 * took less than that once counts and pages got faster.
 */
const ASK_AFTER_MS = 2_100;

/**
 * Two clients asking `bodies` in turn until `during` settles, then at least 20 more requests each and for
 * at least ASK_AFTER_MS (so the engine also notices what changed); every answer timed and compared with
 * `expected`.
 */
export async function trafficDuring<T>(
  post: Post,
  bodies: Bodies,
  expected: readonly string[],
  during: () => Promise<T>,
): Promise<{ answers: Answer[]; result: T }> {
  const answers: Answer[] = [];
  let running = true;
  let until = Infinity;
  const client = async (offset: number): Promise<void> => {
    for (let i = offset, after = 0; running || after++ < 20 || Date.now() < until; i++) {
      const [path, body] = bodies[i % bodies.length]!;
      const at = Date.now();
      const response = await post(path, body);
      const text = await response.text();
      answers.push({ at, ms: Date.now() - at, status: response.status, same: text === expected[i % bodies.length] });
    }
  };
  const clients = [client(0), client(1)];
  const result = await during().finally(() => {
    running = false;
    until = Date.now() + ASK_AFTER_MS;
  });
  await Promise.all(clients);
  return { answers, result };
}

/**
 * Every answer was right, requests were in flight across [from, to) (the switch, as the server logged it)
 * and others after it, and none of those across waited on it: the slowest took no longer than the slowest
 * of the others (the machine's own load) plus LONGEST_WAIT_MS.
 */
export function expectNoWaitAcross(answers: readonly Answer[], from: number, to: number): void {
  expect(answers.filter((a) => a.status !== 200 || !a.same)).toEqual([]);
  const across = answers.filter((a) => a.at < to && a.at + a.ms > from);
  const others = answers.filter((a) => !across.includes(a));
  expect(across.length).toBeGreaterThan(0);
  expect(others.some((a) => a.at >= to)).toBe(true);
  expect(Math.max(...across.map((a) => a.ms))).toBeLessThan(Math.max(...others.map((a) => a.ms)) + LONGEST_WAIT_MS);
}

/**
 * `rounds` rounds of two requests at a time (request k and k + rounds / 2); `stop` is called before round
 * `stopAt` and awaited after round `awaitAt`, so requests run while the node goes down.
 * Returns the requests that failed or answered otherwise than `expected`.
 */
export async function pairsWhileStopping(
  post: Post,
  bodies: Bodies,
  expected: readonly string[],
  { rounds, stopAt, awaitAt, stop }: { rounds: number; stopAt: number; awaitAt: number; stop: () => Promise<void> },
): Promise<unknown[]> {
  const failures: unknown[] = [];
  let stopped: Promise<void> | null = null;
  for (let i = 0; i < rounds; i++) {
    if (i === stopAt) stopped = stop();
    await Promise.all(
      [i, i + rounds / 2].map(async (k) => {
        const [path, body] = bodies[k % bodies.length]!;
        const response = await post(path, body);
        const text = await response.text();
        if (response.status !== 200 || text !== expected[k % bodies.length])
          failures.push({ k, status: response.status, text: text.slice(0, 300) });
      }),
    );
    if (i === awaitAt) await stopped;
  }
  return failures;
}
