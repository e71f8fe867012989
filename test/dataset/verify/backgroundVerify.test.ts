// The background verify runs once a file: a file found sound is remembered by its identity and not
// verified again on the next open, until it changes (a new modification time, another file at the
// path); a damaged file is never remembered. Requests hold a gate the verify's thread waits on.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { startBackgroundVerify } from '../../../src/core/dataset/verify/verify';
import { verifiedIdentity, VerifiedFiles } from '../../../src/core/dataset/verify/verifiedFiles';
import { VerifyGate, waitForRequests } from '../../../src/core/dataset/verify/verifyGate';
import { generateDataset } from '../../../src/core/generate';

let dir: string;
let path: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-verify-once-'));
  path = join(dir, 'people.sqlite');
  generateDataset({ rows: 3000, seed: 11, out: path });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Opens `file`, starts its background verify with `verified`, and resolves with what happened. */
async function verifyOnce(file: string, verified: VerifiedFiles): Promise<'skipped' | { sound: boolean; damage: string[] }> {
  const dataset = Dataset.open(file);
  try {
    const damage: string[] = [];
    let finished!: (sound: boolean) => void;
    const done = new Promise<boolean>((resolve) => (finished = resolve));
    const outcome = startBackgroundVerify(dataset, { verified, delayMs: 0, onDamage: (m) => damage.push(m), onFinished: finished });
    if (outcome === 'skipped') return 'skipped';
    return { sound: await done, damage };
  } finally {
    dataset.close();
  }
}

describe('the background verify', () => {
  it('verifies a file once: found sound, it is remembered and skipped on the next open', async () => {
    const verified = new VerifiedFiles(join(dir, 'verified-a.json'));
    expect(await verifyOnce(path, verified)).toEqual({ sound: true, damage: [] });
    const dataset = Dataset.open(path);
    expect(verified.has(verifiedIdentity(path, dataset.meta))).toBe(true);
    dataset.close();
    expect(await verifyOnce(path, verified)).toBe('skipped');
    // Another memory (another home) knows nothing of it.
    expect(await verifyOnce(path, new VerifiedFiles(join(dir, 'verified-b.json')))).toEqual({ sound: true, damage: [] });
  });

  it('verifies again once the file changes: a new modification time, or another file put at the path', async () => {
    const copy = join(dir, 'copy.sqlite');
    copyFileSync(path, copy);
    const verified = new VerifiedFiles(join(dir, 'verified-c.json'));
    expect(await verifyOnce(copy, verified)).toEqual({ sound: true, damage: [] });
    expect(await verifyOnce(copy, verified)).toBe('skipped');
    utimesSync(copy, new Date(), new Date(Date.now() + 5000));
    expect(await verifyOnce(copy, verified)).toEqual({ sound: true, damage: [] });
    expect(await verifyOnce(copy, verified)).toBe('skipped');
    // A copy put in its place: another inode, the same bytes.
    copyFileSync(path, `${copy}.new`);
    rmSync(copy);
    copyFileSync(`${copy}.new`, copy);
    expect(await verifyOnce(copy, verified)).toEqual({ sound: true, damage: [] });
  });

  it('never remembers a damaged file: it is verified, and found damaged, at every open', async () => {
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(path, damaged);
    const db = new Database(damaged);
    const row = db.prepare('SELECT block, data FROM record_blocks ORDER BY block LIMIT 1 OFFSET 5').get() as {
      block: number;
      data: Buffer;
    };
    row.data[row.data.length - 3]! ^= 0x10;
    db.prepare('UPDATE record_blocks SET data = ? WHERE block = ?').run(row.data, row.block);
    db.close();
    const verified = new VerifiedFiles(join(dir, 'verified-d.json'));
    for (let open = 0; open < 2; open++) {
      const outcome = await verifyOnce(damaged, verified);
      expect(outcome).toMatchObject({ sound: false, damage: [expect.stringMatching(/damaged/)] });
    }
  });

  it('takes an unreadable memory for an empty one', async () => {
    const file = join(dir, 'verified-e.json');
    const verified = new VerifiedFiles(file);
    expect(await verifyOnce(path, verified)).toEqual({ sound: true, damage: [] });
    rmSync(file);
    copyFileSync(path, file); // not JSON at all
    expect(await verifyOnce(path, verified)).toEqual({ sound: true, damage: [] });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveLength(1);
  });

  it("waits on the gate: the verify's thread wakes only once no request holds it", async () => {
    const gate = new VerifyGate();
    const released = new SharedArrayBuffer(4);
    // A request holds the gate from before the waiter starts until the waiter says it waits.
    const count = new Int32Array(gate.buffer);
    Atomics.add(count, 0, 1);
    const endRequest = () => {
      Atomics.store(new Int32Array(released), 0, 1);
      Atomics.sub(count, 0, 1);
      Atomics.notify(count, 0);
    };
    const worker = new Worker(new URL('../../support/workers/gateWaiter.ts', import.meta.url), {
      workerData: { gate: gate.buffer, released },
      execArgv: ['--import', 'tsx'],
    });
    const messages: unknown[] = [];
    const woke = new Promise<unknown>((resolve) =>
      worker.on('message', (m) => {
        messages.push(m);
        // The waiter says it waits: only then does the request end.
        if (m === 'waiting') endRequest();
        else resolve(m);
      }),
    );
    // What the waiter saw when it woke: the request had ended (1), it did not run on past the gate (0).
    expect(await woke).toMatchObject({ released: 1 });
    expect(messages).toEqual(['waiting', expect.objectContaining({ released: 1 })]);
    await worker.terminate();
    // hold() itself leaves the gate free, also when the work throws.
    expect(() =>
      gate.hold(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(Atomics.load(new Int32Array(gate.buffer), 0)).toBe(0);
  });

  it('the verify waits until requests have been quiet its while, counted from the last one to end', async () => {
    const gate = new VerifyGate();
    const quietMs = 1000;
    const lastEnd = () => Number(Atomics.load(new BigInt64Array(gate.buffer, 8, 1), 0));
    const released = new SharedArrayBuffer(4);
    // A request holds the gate from before the waiter starts, so the waiter cannot pass before it ends.
    const count = new Int32Array(gate.buffer, 0, 1);
    Atomics.add(count, 0, 1);
    const worker = new Worker(new URL('../../support/workers/gateWaiter.ts', import.meta.url), {
      workerData: { gate: gate.buffer, released, quietMs },
      execArgv: ['--import', 'tsx'],
    });
    let secondEnd = 0;
    const woke = new Promise<{ released: number; at: number }>((resolve) =>
      worker.on('message', (m) => {
        if (m !== 'waiting') return resolve(m as { released: number; at: number });
        // A request through hold() ends (its end is stamped), then the one held from the start.
        gate.hold(() => undefined);
        Atomics.sub(count, 0, 1);
        Atomics.notify(count, 0);
        // A second request, ending while the waiter sits out the first one's quiet time.
        setTimeout(() => {
          gate.hold(() => Atomics.store(new Int32Array(released), 0, 1));
          secondEnd = lastEnd();
        }, 100);
      }),
    );
    const { released: sawSecond, at } = await woke;
    await worker.terminate();
    expect(sawSecond).toBe(1);
    expect(secondEnd).toBeGreaterThan(0);
    expect(at).toBeGreaterThanOrEqual(secondEnd + quietMs);
  });

  it('but waits for quiet no longer than its patience when requests never pause', async () => {
    const gate = new VerifyGate();
    const released = new SharedArrayBuffer(4);
    const count = new Int32Array(gate.buffer, 0, 1);
    // Held until the waiter waits, as above; then a request ends every 20 ms, never leaving 10 s of quiet.
    Atomics.add(count, 0, 1);
    const worker = new Worker(new URL('../../support/workers/gateWaiter.ts', import.meta.url), {
      workerData: { gate: gate.buffer, released, quietMs: 10_000, patienceMs: 300 },
      execArgv: ['--import', 'tsx'],
    });
    let traffic: ReturnType<typeof setInterval> | undefined;
    const woke = new Promise<{ released: number; began: number; at: number }>((resolve) =>
      worker.on('message', (m) => {
        if (m !== 'waiting') return resolve(m as { released: number; began: number; at: number });
        traffic = setInterval(() => gate.hold(() => Atomics.add(new Int32Array(released), 0, 1)), 20);
        gate.hold(() => undefined);
        Atomics.sub(count, 0, 1);
        Atomics.notify(count, 0);
      }),
    );
    const { released: requestsSeen, began, at } = await woke;
    clearInterval(traffic);
    await worker.terminate();
    // It sat out its patience while requests went on ending, then went on without ten seconds of quiet.
    expect(at - began).toBeGreaterThanOrEqual(300);
    expect(at - began).toBeLessThan(5_000);
    expect(requestsSeen).toBeGreaterThan(3);
  });

  it('a closed gate sends the background threads away at once, also while a request holds it', () => {
    const gate = new VerifyGate();
    expect(waitForRequests(gate.buffer)).toBe(true);
    // Held and closed inside: the wait ends with "stop" instead of waiting for the request.
    expect(
      gate.hold(() => {
        gate.close();
        return waitForRequests(gate.buffer, 10_000);
      }),
    ).toBe(false);
    expect(waitForRequests(gate.buffer)).toBe(false);
  });

  it("ends its thread by itself when the dataset closes, without an engine's gate too: never terminated", async () => {
    const dataset = Dataset.open(path);
    const exited = new Promise<number>((resolve) => {
      startBackgroundVerify(dataset, {
        delayMs: 0,
        onFinished: () => undefined,
        // Closed as soon as the thread runs, long before its check could end: a terminated thread
        // exits with 1 (what better-sqlite3 13 does not survive inside one of its calls); one that
        // ends itself at its next step, with 0.
        onThread: (worker) => {
          worker.once('exit', resolve);
          worker.once('online', () => dataset.close());
        },
      });
    });
    expect(await exited).toBe(0);
  });
});
