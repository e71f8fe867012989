// Issue 17: a damaged dataset file never gives a wrong answer or a 500. Copies of a small generated
// dataset are damaged at random offsets (bits flipped, bytes zeroed, garbage written, the file cut
// short), seeded so a failure replays, and served by the real HTTP server: every answer is the
// undamaged file's, byte for byte, or 503 `dataset_damaged`; a file that does not open says so in
// one sentence naming it. Also: the background verify and `cli verify` find the damage.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideSettings } from '../../../src/core/config';
import { RECORDS_PER_BLOCK } from '../../../src/core/dataset/codec/blockCodec';
import { Dataset } from '../../../src/core/dataset/read/dataset';
import { startBackgroundVerify } from '../../../src/core/dataset/verify/verify';
import { generateDataset } from '../../../src/core/generate';
import { openSqlite } from '../../../src/core/sqlite';
import { AppError } from '../../../src/shared/errors';
import { startApi } from '../../support/apiHarness';
import { randomFrom } from '../../../src/core/audience/contract/listSteps';

const ROWS = 3000;
const SEED = 11;
const ROUNDS = 48;

/** What each round asks: previews and searches (full records) over several states, filters and depths. */
const REQUESTS: Array<[string, object]> = [
  ['/api/audiences/preview', { state: 'CA', limit: 50 }],
  ['/api/audiences/preview', { state: 'CA', limit: 50, skip: 200 }],
  ['/api/audiences/search', { state: 'TX', limit: 100 }],
  ['/api/audiences/search', { state: 'NY', limit: 100, filters: [['GENDER', ['F']]] }],
  [
    '/api/audiences/preview',
    {
      state: 'FL',
      limit: 100,
      filters: [
        ['AGE', ['25-44', '65+']],
        ['MARRIEDCD', ['S', 'M']],
      ],
    },
  ],
  ['/api/audiences/search', { state: 'PA', limit: 25, skip: 10, filters: [['HOMEOWNERC', ['H']]] }],
  ['/api/audiences/preview', { state: 'OH', limit: 0 }],
  ['/api/audiences/search', { state: 'WY', limit: 100 }],
];

type Answer = { status: number; body: string };

async function ask(api: Awaited<ReturnType<typeof startApi>>): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const [path, body] of REQUESTS) {
    const res = await api.post(path, body);
    out.push({ status: res.status, body: await res.text() });
  }
  return out;
}

/** Damages `path` in place; says how, for the failure message. */
function damage(path: string, rnd: () => number): string {
  const size = statSync(path).size;
  const bytes = readFileSync(path);
  const at = Math.floor(rnd() * size);
  const mode = Math.floor(rnd() * 4);
  if (mode === 0) {
    const n = 1 + Math.floor(rnd() * 16);
    for (let i = 0; i < n && at + i < size; i++) bytes[at + i]! ^= 1 << Math.floor(rnd() * 8);
    writeFileSync(path, bytes);
    return `flipped bits in ${n} bytes at ${at}`;
  }
  if (mode === 1) {
    const n = 1 + Math.floor(rnd() * 8192);
    bytes.fill(0, at, Math.min(size, at + n));
    writeFileSync(path, bytes);
    return `zeroed ${n} bytes at ${at}`;
  }
  if (mode === 2) {
    const n = Math.min(100 * 1024, size - at);
    for (let i = 0; i < n; i++) bytes[at + i] = Math.floor(rnd() * 256);
    writeFileSync(path, bytes);
    return `wrote ${n} bytes of garbage at ${at}`;
  }
  truncateSync(path, at);
  return `truncated to ${at} bytes`;
}

/** Where the stored bytes of record block `block` start in the file (found by their first 64 bytes). */
function offsetOfBlock(path: string, block: number): number {
  const db = openSqlite(path, { readonly: true });
  const data = db.prepare('SELECT data FROM record_blocks WHERE block = ?').pluck().get(block) as Buffer;
  db.close();
  const at = readFileSync(path).indexOf(data.subarray(0, 64));
  expect(at).toBeGreaterThan(0);
  return at;
}

let dir: string;
let source: string;
let undamaged: Answer[];
let restore: () => void;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-damage-'));
  source = join(dir, 'source.sqlite');
  generateDataset({ rows: ROWS, seed: SEED, out: source });
  // The rounds check the answers; the background verify has a test of its own.
  restore = overrideSettings({ backgroundVerify: false });
  const api = await startApi(source);
  try {
    undamaged = await ask(api);
  } finally {
    await api.close();
  }
}, 120_000);

afterAll(() => {
  restore();
  rmSync(dir, { recursive: true, force: true });
});

describe('a damaged dataset file', () => {
  it('answers every request as the undamaged file does or 503 dataset_damaged, never a 500 or other data', async () => {
    expect(undamaged.every((a) => a.status === 200)).toBe(true);
    // Seeded (the sample control's mulberry32), so a failing round can be replayed.
    const rnd = randomFrom(20_261_125);
    let damagedAnswers = 0;
    let refusedOpens = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const copy = join(dir, `copy-${round}.sqlite`);
      copyFileSync(source, copy);
      const how = damage(copy, rnd);
      let api: Awaited<ReturnType<typeof startApi>>;
      try {
        api = await startApi(copy);
      } catch (e) {
        // A file that does not open: one sentence naming it, never SQLite's own words alone.
        expect(e, `round ${round}: ${how}`).toBeInstanceOf(AppError);
        expect((e as AppError).message, `round ${round}: ${how}`).toContain(copy);
        expect((e as AppError).message.trim().split(/\.\s+(?=[A-Z])/).length, `round ${round}: ${how}`).toBe(1);
        refusedOpens++;
        rmSync(copy, { force: true });
        continue;
      }
      try {
        const answers = await ask(api);
        answers.forEach((answer, k) => {
          const context = `round ${round} (${how}), request ${k}: ${answer.status} ${answer.body.slice(0, 200)}`;
          if (answer.status === 503) {
            const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
            expect(body.error.code, context).toBe('dataset_damaged');
            expect(body.error.message, context).toContain(copy);
            damagedAnswers++;
          } else {
            expect(answer.status, context).toBe(200);
            expect(answer.body, context).toBe(undamaged[k]!.body);
          }
        });
      } finally {
        await api.close();
        rmSync(copy, { force: true });
      }
    }
    // The rounds did meet damage both ways (else they tested nothing).
    expect(damagedAnswers).toBeGreaterThan(0);
    expect(refusedOpens).toBeGreaterThan(0);
  }, 300_000);

  it('is found by the background verify after open, which names the file and the damaged piece', async () => {
    const copy = join(dir, 'verify-background.sqlite');
    copyFileSync(source, copy);
    // Bytes of a record block, which no request has read yet.
    const bytes = readFileSync(copy);
    const at = offsetOfBlock(copy, 40) + 20;
    bytes.fill(0x5a, at, at + 16);
    writeFileSync(copy, bytes);
    const dataset = Dataset.open(copy);
    try {
      expect(dataset.damage).toBeNull();
      const found = new Promise<string>((resolve) => startBackgroundVerify(dataset, { onDamage: resolve, delayMs: 0 }));
      const message = await found;
      expect(message).toContain(copy);
      expect(message).toContain(`damaged (records ${40 * RECORDS_PER_BLOCK} to ${41 * RECORDS_PER_BLOCK - 1} fail their checksum)`);
      expect(dataset.damage).toBe(message);
    } finally {
      dataset.close();
    }
  }, 60_000);

  it('`cli verify --db FILE` exits 0 for a sound file and 1, naming the file, for a damaged one', () => {
    const run = (path: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'verify', '--db', path], { encoding: 'utf8' });
    const good = run(source);
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^ok: .*source\.sqlite: 3000 records/);
    const copy = join(dir, 'verify-cli.sqlite');
    copyFileSync(source, copy);
    const bytes = readFileSync(copy);
    bytes[offsetOfBlock(copy, 7) + 30]! ^= 0xff;
    writeFileSync(copy, bytes);
    const bad = run(copy);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(copy);
    expect(bad.stderr).toMatch(/^damaged: /);
  }, 60_000);
});
