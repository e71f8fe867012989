// App-state backup and restore, through the real CLI in child processes and a real server: a backup
// restored into an empty home answers the same keys over HTTP and shows the same saved audiences,
// lists keep matching, nothing secret is in the file, foreign and damaged files are refused with a
// sentence, and a kill -9 in the middle of a restore leaves the old state or the new one, whole.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore, type Core } from '../../src/core/createCore';
import { ApiServer } from '../../src/server/apiServer';
import { openSqlite } from '../../src/core/sqlite';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { cli } from '../support/cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-backup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function preview(url: string, key: string, body: unknown = { state: 'CA', limit: 1 }): Promise<number> {
  const r = await fetch(`${url}/api/audiences/preview`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return r.status;
}

const PIDS = ['0000000000000000000000000000000A', '0000000000000000000000000000000B', '0000000000000000000000000000000C'];

/** A home with two keys (one revoked), two saved audiences, a suppression list of three PIDs and a setting. */
async function populatedHome(home: string): Promise<{ key: string; revoked: string; listId: string }> {
  const core = createCore({ homeDir: home });
  try {
    const key = core.keys.create('analyst').key;
    const old = core.keys.create('old tool');
    core.keys.revoke(old.info.id);
    core.savedAudiences.save({ name: 'Women in CA', state: 'CA', filters: [['GENDER', ['F']]] });
    core.savedAudiences.save({ name: 'Callable TX', state: 'TX', filters: [], contact: { phone: 'callable' } });
    const listFile = join(home, 'dnc.csv');
    writeFileSync(listFile, `PID\n${PIDS.join('\n')}\n`);
    const list = await core.lists.import(listFile, 'Do not contact');
    core.appState.prepare("INSERT INTO settings (key, value) VALUES ('datasets.keep', '5')").run();
    return { key, revoked: old.key, listId: list.id };
  } finally {
    await core.shutdown();
  }
}

/** Whether a list's matcher (hashes under the home's secret) names a record with this PID. */
function listNames(core: Core, listId: string, pid: string): boolean {
  const matcher = core.lists.matcher(listId)!;
  return matcher.matches(matcher.fields.map((f) => (f === 'PID' ? pid : '')));
}

describe('backup and restore (CLI)', () => {
  it('a backup restored into an empty home answers with the same keys and shows the same saved audiences and lists', async () => {
    const home = join(dir, 'source');
    const { key, revoked, listId } = await populatedHome(home);
    const file = join(dir, 'state.backup');
    const b = await cli(['backup', '--home', home, '--out', file]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Nothing secret in the file: the key itself is not there, only its hash.
    expect(readFileSync(file).includes(Buffer.from(key))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes('.partial'))).toEqual([]);

    const target = join(dir, 'empty-home');
    const r = await cli(['restore', '--from', file, '--yes', '--home', target]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trimEnd().split('\n').at(-1)!)).toMatchObject({ keys: 2, savedAudiences: 2, lists: 1 });

    const core = createCore({ homeDir: target, datasetPath: inject('datasetPath') });
    const server = new ApiServer(core);
    const url = await server.listen(0);
    try {
      expect(await preview(url, key)).toBe(200);
      expect(await preview(url, revoked)).toBe(401);
      expect(await preview(url, 'x'.repeat(64))).toBe(401);
      expect(core.savedAudiences.list().map((a) => [a.name, a.state, a.filters, a.controls])).toEqual([
        ['Callable TX', 'TX', [], { contact: { phone: 'callable' } }],
        ['Women in CA', 'CA', [['GENDER', ['F']]], {}],
      ]);
      // The list's hashes only match under the home's secret, which came along: it still names its people.
      expect((await core.lists.list()).map((l) => [l.id, l.name, l.pids])).toEqual([[listId, 'Do not contact', 3]]);
      expect(PIDS.map((p) => listNames(core, listId, p))).toEqual([true, true, true]);
      expect(listNames(core, listId, '0000000000000000000000000000000D')).toBe(false);
      expect(await preview(url, key, { state: 'CA', limit: 1, exclude: [`list:${listId}`] })).toBe(200);
      expect(core.appState.prepare("SELECT value FROM settings WHERE key = 'datasets.keep'").pluck().get()).toBe('5');
    } finally {
      await server.close();
      await core.shutdown();
    }
  });

  it('refuses a foreign or damaged file with a sentence, and changes nothing', async () => {
    const home = join(dir, 'refusing');
    const { key } = await populatedHome(home);
    const foreign = join(dir, 'notes.txt');
    writeFileSync(foreign, 'not a backup at all, just text that is long enough to be read as a header '.repeat(20));
    const plainSqlite = join(dir, 'other.sqlite');
    const db = openSqlite(plainSqlite);
    db.exec('CREATE TABLE t (x)');
    db.close();
    const good = join(dir, 'good.backup');
    expect((await cli(['backup', '--home', home, '--out', good])).code).toBe(0);
    const damaged = join(dir, 'damaged.backup');
    const bytes = readFileSync(good);
    // Scribble over the second half of the file: pages of tables, not its header.
    for (let i = Math.floor(bytes.length / 2); i < bytes.length; i += 7) bytes[i] = 0xa5;
    writeFileSync(damaged, bytes);
    const truncated = join(dir, 'truncated.backup');
    writeFileSync(truncated, readFileSync(good).subarray(0, 4096 + 100));

    for (const [file, sentence] of [
      [foreign, /not an Audience Desk backup/],
      [plainSqlite, /not an Audience Desk backup/],
      [damaged, /damaged|not an Audience Desk backup/],
      [truncated, /damaged|not an Audience Desk backup/],
    ] as const) {
      const r = await cli(['restore', '--from', file, '--yes', '--home', home]);
      expect(r.code, file).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(sentence);
    }
    const core = createCore({ homeDir: home });
    try {
      expect(core.keys.verify(key)).not.toBeNull();
      expect(core.savedAudiences.list()).toHaveLength(2);
    } finally {
      await core.shutdown();
    }
  });
});

describe('kill -9 during a restore', () => {
  it('leaves the old app state or the new one, whole, every time', async () => {
    const source = join(dir, 'kill-source');
    const { key: newKey } = await populatedHome(source);
    // A big backup, so the restore's copy, migration and swap take long enough to be killed inside.
    const big = createCore({ homeDir: source });
    const insert = big.appState.prepare(
      "INSERT INTO saved_audiences (name, state, filters, controls, created_at, updated_at) VALUES (?, 'TX', '[[\"GENDER\",[\"M\"]]]', '{}', '2026-01-01', '2026-01-01')",
    );
    big.appState.transaction(() => {
      for (let i = 0; i < 40_000; i++) insert.run(`new ${i}`);
    })();
    await big.shutdown();
    const file = join(dir, 'kill.backup');
    expect((await cli(['backup', '--home', source, '--out', file])).code).toBe(0);

    // How long a whole restore takes on this machine, from its staging copy's appearance to its exit,
    // so the kills below land inside it however fast or loaded the machine is.
    const timed = join(dir, 'kill-timed');
    await createCore({ homeDir: timed }).shutdown();
    const timing = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'restore', '--from', file, '--yes', '--home', timed], {
      stdio: 'ignore',
    });
    const timingExit = new Promise<void>((r) => timing.once('exit', () => r()));
    const timingStart = Date.now();
    while (!readdirSync(timed).some((n) => n.startsWith('.restore-')) && Date.now() - timingStart < 30_000) await sleep(2);
    const stagedAt = Date.now();
    await timingExit;
    const restoreMs = Date.now() - stagedAt;

    const outcomes: string[] = [];
    for (let round = 0; round < 5; round++) {
      const home = join(dir, `kill-home-${round}`);
      // The home's own state: one key and many saved audiences, so the swap has work to do.
      const core = createCore({ homeDir: home });
      const oldKey = core.keys.create('old').key;
      const insert = core.appState.prepare(
        "INSERT INTO saved_audiences (name, state, filters, controls, created_at, updated_at) VALUES (?, 'CA', '[]', '{}', '2026-01-01', '2026-01-01')",
      );
      core.appState.transaction(() => {
        for (let i = 0; i < 3000; i++) insert.run(`old ${i}`);
      })();
      await core.shutdown();

      // Node itself with tsx as a loader: no launcher process in between, so SIGKILL reaches the restore.
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'restore', '--from', file, '--yes', '--home', home], {
        stdio: 'ignore',
      });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
      // Once the restore has begun (its staging copy appears), kill it a little later each round:
      // at 0, 15, 30, 45 and 60% of the time a whole restore took.
      const started = Date.now();
      while (!readdirSync(home).some((n) => n.startsWith('.restore-')) && Date.now() - started < 30_000) await sleep(2);
      await sleep(Math.floor((restoreMs * [0, 15, 30, 45, 60][round]!) / 100));
      child.kill('SIGKILL');
      const signal = await exited;
      if (signal !== 'SIGKILL') outcomes.push('finished before the kill');

      const after = createCore({ homeDir: home });
      try {
        expect(after.notices).toEqual([]);
        expect(after.appState.pragma('integrity_check', { simple: true })).toBe('ok');
        const audiences = after.savedAudiences.list().length;
        const oldWorks = after.keys.verify(oldKey) !== null;
        const newWorks = after.keys.verify(newKey) !== null;
        if (oldWorks) {
          expect([audiences, newWorks]).toEqual([3000, false]);
          outcomes.push('old');
        } else {
          expect([audiences, newWorks]).toEqual([40_002, true]);
          outcomes.push('new');
        }
      } finally {
        await after.shutdown();
      }
    }
    // The staging copy of a killed restore is removed by the next restore, which completes.
    const home = join(dir, 'kill-home-0');
    const r = await cli(['restore', '--from', file, '--yes', '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(home).filter((n) => n.startsWith('.restore-'))).toEqual([]);
    console.log(`restore (${restoreMs} ms whole) killed 5 times: ${outcomes.join(', ')}`);
    expect(outcomes.filter((o) => o.startsWith('finished')).length).toBeLessThan(3);
  }, 300_000);
});

describe('a damaged app state at start-up', () => {
  it('is set aside, not deleted; the user is told on stderr; the app starts clean', async () => {
    const home = join(dir, 'damaged-home');
    await populatedHome(home);
    const path = homeLayout(home).appState;
    const bytes = readFileSync(path);
    for (let i = 100; i < bytes.length; i += 3) bytes[i] = 0x5a;
    writeFileSync(path, bytes);
    const original = readFileSync(path);
    const r = await cli(['keys', 'list', '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    const notice = r.stderr.split('\n').find((l) => l.startsWith('notice: '));
    expect(notice).toMatch(/App state was damaged .* set aside, not deleted, as .*app-state\.damaged-\d{8}-\d{6}-\d+\.sqlite/);
    expect(r.stdout).toBe('');
    const aside = readdirSync(home).filter((n) => n.startsWith('app-state.damaged-') && n.endsWith('.sqlite'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(home, aside[0]!)).equals(original)).toBe(true);
    // Started clean, and stays so: the next start says nothing.
    const again = await cli(['keys', 'list', '--home', home]);
    expect(again.stderr).toBe('');
    expect(existsSync(path)).toBe(true);
  });

  it('in the app: app/notices tells it', async () => {
    const home = join(dir, 'damaged-app');
    mkdirSync(home, { recursive: true });
    writeFileSync(homeLayout(home).appState, Buffer.alloc(8192, 7));
    const core = createCore({ homeDir: home });
    try {
      expect(core.notices).toHaveLength(1);
      expect(core.notices[0]).toMatch(/set aside/);
      expect(core.keys.list()).toEqual([]);
    } finally {
      await core.shutdown();
    }
  });
});
