// Issue 39: a backup was world-readable while it was written (VACUUM INTO created its partial file
// 0644 under umask 022, made 0600 only when finished; a watcher as another user read all of it).
// The real CLI writes a backup of a large app state (about 32 MB, so the write takes a while) under
// umask 022 while this process watches the folder with fs.watch and a tight poll, reading the mode
// of every partial file it sees: each one is 0600 from its creation (size 0) through its last byte,
// and so is the finished backup. Also that SQLite writes VACUUM INTO into the empty owner-only file
// it is given: same inode, same mode.
import { spawn } from 'node:child_process';
import { closeSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateFile } from '../../src/core/fs/privateFile';
import { createCore } from '../../src/core/createCore';
import { openSqlite } from '../../src/core/sqlite';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-backup-mode-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withUmask<T>(mask: number, work: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await work();
  } finally {
    process.umask(previous);
  }
}

describe('a backup is owner-only from its first byte', () => {
  it('SQLite writes VACUUM INTO into the existing empty 0600 file: same inode, same mode', async () => {
    await withUmask(0o022, async () => {
      const source = openSqlite(':memory:');
      source.exec('CREATE TABLE t (x BLOB); INSERT INTO t VALUES (randomblob(200000));');
      const out = join(dir, 'probe.sqlite');
      closeSync(createPrivateFile(out));
      const before = statSync(out);
      expect([before.size, before.mode & 0o777]).toEqual([0, 0o600]);
      source.prepare('VACUUM INTO ?').run(out);
      source.close();
      const after = statSync(out);
      expect(after.ino).toBe(before.ino);
      expect(after.mode & 0o777).toBe(0o600);
      expect(after.size).toBeGreaterThan(200_000);
      // And it never writes through a file someone put at that name first.
      expect(() => createPrivateFile(out)).toThrow(/EEXIST/);
    });
  });

  it('under umask 022, every partial file the CLI writes is 0600 whenever it is seen, from size 0 on', async () => {
    const home = join(dir, 'home');
    const core = createCore({ homeDir: home });
    try {
      // About 32 MB of app state (the export history's PID lists): the copy takes long enough to be watched.
      const audit = core.appState.prepare(
        "INSERT INTO audit_log (at, actor, action, audience, records, file, outcome) VALUES ('2026-01-01', 'cli', 'export', '{}', 1, 'x.csv', 'ok')",
      );
      const people = core.appState.prepare('INSERT INTO export_people (audit_id, people, pids) VALUES (?, 65536, randomblob(1048576))');
      core.appState.transaction(() => {
        for (let i = 0; i < 32; i++) people.run(audit.run().lastInsertRowid);
      })();
    } finally {
      await core.shutdown();
    }
    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    const out = join(outDir, 'state.backup');

    const sightings: Array<{ name: string; mode: number; size: number }> = [];
    const look = (name: string): void => {
      if (!name.includes('.partial')) return;
      try {
        const st = lstatSync(join(outDir, name));
        sightings.push({ name, mode: st.mode & 0o777, size: st.size });
      } catch {
        // gone already
      }
    };
    const watcher = watch(outDir, (_event, name) => name && look(String(name)));
    let polling = true;
    const poll = (): void => {
      if (!polling) return;
      for (const name of readdirSync(outDir)) look(name);
      setTimeout(poll, 1);
    };
    poll();
    try {
      const code = await withUmask(0o022, async () => {
        // Node itself with tsx as a loader: the child inherits this umask.
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'backup', '--home', home, '--out', out], {
          stdio: 'ignore',
        });
        return new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      });
      expect(code).toBe(0);
    } finally {
      polling = false;
      watcher.close();
    }
    const final = statSync(out);
    expect(final.mode & 0o777).toBe(0o600);
    expect(final.size).toBeGreaterThan(32 * 1024 * 1024);
    // Seen while it was being written, not only at its start or end.
    expect(sightings.length).toBeGreaterThan(0);
    expect(sightings.some((s) => s.size < final.size)).toBe(true);
    const wider = sightings.filter((s) => s.mode !== 0o600).map((s) => `${s.name} ${s.mode.toString(8)} at ${s.size} bytes`);
    expect(wider).toEqual([]);
    console.log(
      `backup partial seen ${sightings.length} times, sizes ${Math.min(...sightings.map((s) => s.size))} to ${Math.max(...sightings.map((s) => s.size))}, all 0600`,
    );
    expect(readdirSync(outDir)).toEqual(['state.backup']);
  }, 120_000);
});
