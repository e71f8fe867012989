// Promise 4: nothing is lost or corrupted. The dataset is opened read-only for queries; app state is
// WAL with synchronous FULL; and `kill -9` in the middle of any write (key creation/revocation,
// export, dataset generation) leaves every database passing PRAGMA integrity_check and no partial
// file under the name the user chose. (Import kill tests belong to the import engineer.)
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore } from '../../src/core/createCore';
import { APP_STATE_FILE } from '../../src/core/appState/homeLayout';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { exportAudience } from '../../src/core/export/exportAudience';
import { send, sleep, startSecurityApi } from './support';
import { datasetOf } from '../support/audienceQueries';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function integrity(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/** A writable copy for integrity checks of a WAL database (reading it may need to replay the WAL). */
function integrityOfWalDb(path: string): string {
  const db = new Database(path, { fileMustExist: true });
  try {
    return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/**
 * Runs a TypeScript file in one node process (`node --import tsx`): the `tsx` command would put a
 * wrapper process in between, and killing the wrapper would leave the real writer running.
 */
function spawnTsx(args: string[]): { child: ChildProcess; stdout: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ? -1 : code)));
  return { child, stdout: () => out, exited };
}

async function waitFor(check: () => boolean, timeoutMs: number, stepMs = 2): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (check()) return true;
    await sleep(stepMs);
  }
  return check();
}

describe('the dataset is read-only for queries', () => {
  it("a write through the engine's own connection fails, and queries leave the file and its folder unchanged", async () => {
    const copyDir = join(dir, 'readonly');
    mkdirSync(copyDir);
    const path = join(copyDir, 'dataset.sqlite');
    copyFileSync(inject('datasetPath'), path);
    const before = { hash: sha256(path), mtime: statSync(path).mtimeMs, files: readdirSync(copyDir).sort() };
    const api = await startSecurityApi(path);
    try {
      const db = (datasetOf(api.core) as unknown as { db: Database.Database }).db;
      expect(db.readonly).toBe(true);
      expect(() => db.exec('CREATE TABLE intruder (x)')).toThrow(/readonly|read-only|query_only/i);
      expect(() => db.prepare("UPDATE record_blocks SET data = x'00' WHERE block = 0").run()).toThrow(/readonly|read-only|query_only/i);
      expect(() => db.prepare('DELETE FROM meta').run()).toThrow(/readonly|read-only|query_only/i);
      expect(() => db.pragma('query_only = OFF')).not.toThrow(); // even with query_only off, the file handle is read-only:
      expect(() => db.exec('DROP TABLE states')).toThrow(/readonly|read-only/i);
      for (const state of ['CA', 'TX', 'NY', 'WY']) {
        for (const path2 of ['/api/audiences/preview', '/api/audiences/search']) {
          const res = await send(api.url, {
            method: 'POST',
            path: path2,
            headers: { 'content-type': 'application/json', 'x-api-key': api.key },
            body: JSON.stringify({ state, limit: 50, filters: [['GENDER', ['F', 'M']]] }),
          });
          expect(res.status).toBe(200);
        }
      }
      await exportAudience(api.core.engine, { state: 'CA', filters: [] }, { format: 'jsonl', outPath: join(dir, 'ro-export.jsonl') });
    } finally {
      await api.close();
    }
    expect(sha256(path)).toBe(before.hash);
    expect(statSync(path).mtimeMs).toBe(before.mtime);
    expect(readdirSync(copyDir).sort()).toEqual(before.files);
    expect(integrity(path)).toBe('ok');
  });
});

describe('app state', () => {
  it('is WAL with synchronous FULL, so every committed change survives a crash', async () => {
    const core = createCore({ homeDir: join(dir, 'pragmas') });
    try {
      expect(core.appState.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(core.appState.pragma('synchronous', { simple: true })).toBe(2); // FULL
    } finally {
      await core.shutdown();
    }
  });

  it('kill -9 at random moments while keys are created and revoked (10 times): integrity ok, no committed key lost', async () => {
    const home = join(dir, 'keys-home');
    const log: string[] = [];
    let previousCount = 0;
    for (let round = 0; round < 10; round++) {
      const { child, stdout, exited } = spawnTsx(['test/security/fixtures/keyChurn.ts', home]);
      // Rounds 0-1 may land anywhere from start-up on (module loading, opening, migrations); later
      // rounds land in the middle of the write loop.
      const early = round < 2;
      if (!early) expect(await waitFor(() => stdout().includes('ready'), 20_000, 5), stdout()).toBe(true);
      const delay = Math.round(Math.random() * (early ? 400 : 300));
      await sleep(delay);
      child.kill('SIGKILL');
      expect(await exited).toBe(-1);
      const dbPath = join(home, APP_STATE_FILE);
      if (!existsSync(dbPath)) {
        log.push(`round ${round}: killed ${delay} ms ${early ? 'after spawn' : 'after ready'}, before app state existed`);
        continue;
      }
      expect(integrityOfWalDb(dbPath)).toBe('ok');
      const core = createCore({ homeDir: home });
      try {
        const keys = core.keys.list();
        for (const k of keys) {
          expect(k.id).toMatch(/^[0-9a-f]{12}$/);
          expect(k.prefix).toMatch(/^adk_/);
          expect(k.createdAt).toMatch(/^\d{4}-/);
        }
        // Keys only ever accumulate: what was committed before this kill is still there, and every
        // write the child reported (it prints only after the commit) is there as it reported it.
        expect(keys.length).toBeGreaterThanOrEqual(previousCount);
        const byId = new Map(keys.map((k) => [k.id, k]));
        const reported = stdout().split('\n').slice(0, -1); // the last line may be cut by the kill
        for (const line of reported) {
          const [op, id] = line.split(' ');
          if (op === 'k') expect(byId.has(id!), line).toBe(true);
          if (op === 'r') expect(byId.get(id!)?.revokedAt, line).not.toBeNull();
        }
        previousCount = keys.length;
        const fresh = core.keys.create('after the crash');
        expect(core.keys.verify(fresh.key)).not.toBeNull();
        previousCount++;
        log.push(
          `round ${round}: killed ${delay} ms ${early ? 'after spawn' : 'after ready'}; ${keys.length} keys, ${reported.length} reported writes all present, integrity ok`,
        );
      } finally {
        await core.shutdown();
      }
    }
    console.info(`crash (keys): ${log.join(' | ')}`);
    expect(previousCount).toBeGreaterThan(10);
  }, 180_000);
});

describe('export', () => {
  it('kill -9 mid-export leaves no file under the chosen name; the next export to it removes the stale partials', async () => {
    const outDir = join(dir, 'exports');
    mkdirSync(outDir);
    const target = join(outDir, 'audience.csv');
    const dataset = Dataset.open(inject('datasetPath'));
    const biggest = dataset.stateCounts().sort((a, b) => b.count - a.count)[0]!;
    dataset.close();
    const partials = () => readdirSync(outDir).filter((n) => n.startsWith(`.${basename(target)}.partial-`));
    const killedAt: number[] = [];
    let stale: string[] = [];
    for (let round = 0; round < 3; round++) {
      const seen = new Set(partials());
      const { child, exited, stdout } = spawnTsx([
        'test/security/fixtures/exportChild.ts',
        inject('datasetPath'),
        biggest.state,
        target,
        join(dir, 'export-home'),
      ]);
      // Kill at a random moment once the new partial file has records in it.
      const started = await waitFor(() => stdout().includes('writing') && partials().some((n) => !seen.has(n)), 20_000, 5);
      expect(started, stdout()).toBe(true);
      // Each export starts by removing the partials killed exports left behind.
      expect(partials().filter((n) => stale.includes(n))).toEqual([]);
      const delay = Math.round(Math.random() * 300);
      await sleep(delay);
      killedAt.push(Math.max(...partials().map((n) => statSync(join(outDir, n)).size)));
      child.kill('SIGKILL');
      await exited;
      expect(existsSync(target), `round ${round}, killed ${delay} ms after "writing": ${stdout()}`).toBe(false);
      stale = partials();
      expect(stale).toHaveLength(1);
      expect(integrity(inject('datasetPath'))).toBe('ok');
    }
    // A partial written by a live process (here: our parent's pid) and another target's partial stay.
    const liveOther = join(outDir, `.${basename(target)}.partial-${process.ppid}-0badc0de`);
    const otherTarget = join(outDir, '.other.csv.partial-1-0badc0de');
    const legacy = join(outDir, `.${basename(target)}.partial-0badc0de`);
    for (const p of [liveOther, otherTarget, legacy]) writeFileSync(p, 'x');
    console.info(
      `crash (export): killed 3 exports of ${biggest.state} (${biggest.count} records) at ${killedAt.join(', ')} bytes written; no file under the chosen name each time; ${partials().length} partial files before the next export`,
    );

    const core = createCore({ homeDir: join(dir, 'export-home'), datasetPath: inject('datasetPath') });
    try {
      const result = await exportAudience(core.engine, { state: biggest.state, filters: [] }, { format: 'csv', outPath: target });
      expect(result.records).toBe(biggest.count);
    } finally {
      await core.shutdown();
    }
    expect(readFileSync(target, 'utf8').split('\r\n').length).toBe(biggest.count + 2); // header + records + final CRLF
    expect(partials().map((n) => join(outDir, n))).toEqual([liveOther]);
    expect(existsSync(otherTarget)).toBe(true);
  }, 120_000);
});

describe('dataset generation', () => {
  const buildingFiles = (folder: string, name: string) => readdirSync(folder).filter((n) => n.startsWith(`${name}.building-`));
  // A writer's files come and go while it runs (SQLite's journal for a moment at the start): one
  // listed and gone before it is looked at has no size.
  const sizeOf = (path: string): number => {
    try {
      return statSync(path).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
  };

  async function killGenerate(out: string, rows: number): Promise<number> {
    const folder = join(out, '..');
    const before = new Set(buildingFiles(folder, basename(out)));
    const { child, exited, stdout } = spawnTsx(['src/cli/index.ts', 'generate', '--rows', String(rows), '--seed', '11', '--out', out]);
    const fresh = () => buildingFiles(folder, basename(out)).filter((n) => !before.has(n));
    const started = await waitFor(() => fresh().some((n) => sizeOf(join(folder, n)) > 1_000_000), 60_000, 10);
    expect(started, stdout()).toBe(true);
    await sleep(Math.round(Math.random() * 300));
    const size = Math.max(...fresh().map((n) => sizeOf(join(folder, n))));
    child.kill('SIGKILL');
    await exited;
    return size;
  }

  it('kill -9 mid-generation: no file at --out when there was none, the previous file intact when there was one', async () => {
    const folder = join(dir, 'generate');
    mkdirSync(folder);
    const out = join(folder, 'people.sqlite');
    const sizes: number[] = [];

    sizes.push(await killGenerate(out, 400_000));
    expect(existsSync(out)).toBe(false);

    const first = spawnTsx(['src/cli/index.ts', 'generate', '--rows', '2000', '--seed', '5', '--out', out]);
    expect(await first.exited, first.stdout()).toBe(0);
    const previous = sha256(out);
    for (let round = 0; round < 3; round++) {
      sizes.push(await killGenerate(out, 400_000));
      expect(sha256(out)).toBe(previous);
      expect(integrity(out)).toBe('ok');
      const ds = Dataset.open(out);
      expect(ds.records).toBe(2000);
      ds.close();
    }
    const leftovers = buildingFiles(folder, basename(out));
    console.info(
      `crash (generate): killed 4 generations at ${sizes.join(', ')} bytes written; previous file intact; leftover temporary files beside it: ${leftovers.length} (${leftovers.join(', ')})`,
    );
    // Whatever is left over is a temporary name, never the user's.
    expect(readdirSync(folder).filter((n) => n === basename(out))).toEqual([basename(out)]);
  }, 300_000);
});
