// Files holding personal records or secrets are owner-only from their first byte, whatever the
// umask (src/core/fs/privateFile.ts): the helpers create them 0600 and never write through a file
// that was already there; SQLite gives the -journal, -wal and -shm files it creates the mode of the
// database file it opened (which is why a database is created empty and 0600 first); app state is
// 0600 at every moment, companions included. Datasets, imports and exports: test/generate,
// test/import and test/export (fileModes.test.ts each).
import { closeSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_STATE_FILE } from '../../src/core/appState/homeLayout';
import { createCore } from '../../src/core/createCore';
import {
  createPrivateDatabaseFile,
  createPrivateFile,
  createPrivateFileHandle,
  ensurePrivateDatabaseFile,
  makePrivateDir,
  replacePrivateFile,
  writePrivateFile,
} from '../../src/core/fs/privateFile';
import { openSqlite } from '../../src/core/sqlite';
import { modeOf, ModeWatch, withUmask } from '../support/modeWatch';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-modes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('privateFile helpers', () => {
  it('create files 0600 and folders 0700 under a umask of 022', async () => {
    await withUmask(0o022, async () => {
      closeSync(createPrivateFile(join(dir, 'a')));
      writePrivateFile(join(dir, 'b'), 'secret');
      await (await createPrivateFileHandle(join(dir, 'c'))).close();
      makePrivateDir(join(dir, 'd', 'e'));
      expect([modeOf(join(dir, 'a')), modeOf(join(dir, 'b')), modeOf(join(dir, 'c'))]).toEqual([0o600, 0o600, 0o600]);
      expect([modeOf(join(dir, 'd')), modeOf(join(dir, 'd', 'e'))]).toEqual([0o700, 0o700]);
    });
  });

  it('never write through a file already there (it would keep its own mode)', async () => {
    const old = join(dir, 'old');
    writeFileSync(old, 'x', { mode: 0o644 });
    expect(() => createPrivateFile(old)).toThrow(/EEXIST/);
    expect(() => writePrivateFile(old, 'y')).toThrow(/EEXIST/);
    await expect(createPrivateFileHandle(old)).rejects.toThrow(/EEXIST/);
    expect(modeOf(old)).toBe(0o644);
    // A scratch file of this process's own is replaced: a new file, 0600.
    await withUmask(0o022, () => closeSync(replacePrivateFile(old)));
    expect(modeOf(old)).toBe(0o600);
  });

  it('narrow an older app-state database and its companions, keeping its content', () => {
    const db = join(dir, 'kept.sqlite');
    for (const f of [db, `${db}-wal`, `${db}-shm`]) writeFileSync(f, 'kept', { mode: 0o644 });
    ensurePrivateDatabaseFile(db);
    expect([modeOf(db), modeOf(`${db}-wal`), modeOf(`${db}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    expect(existsSync(`${db}-journal`)).toBe(false);
  });
});

describe('SQLite', () => {
  it('creates -journal, -wal and -shm with the mode of the database file it opened', async () => {
    await withUmask(0o022, () => {
      const file = join(dir, 'private.sqlite');
      createPrivateDatabaseFile(file);
      const db = openSqlite(file);
      db.pragma('journal_mode = DELETE');
      db.exec('CREATE TABLE t (x)');
      db.exec('BEGIN');
      db.exec('INSERT INTO t VALUES (randomblob(100000))');
      // The rollback journal exists while the transaction is open.
      expect(modeOf(`${file}-journal`)).toBe(0o600);
      db.exec('COMMIT');
      db.pragma('journal_mode = WAL');
      db.exec('INSERT INTO t VALUES (1)');
      expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual([0o600, 0o600, 0o600]);
      db.close();

      // The control: a database SQLite creates itself takes the umask (0644), and so do its companions.
      const open = join(dir, 'umask.sqlite');
      const other = openSqlite(open);
      other.pragma('journal_mode = WAL');
      other.exec('CREATE TABLE t (x)');
      expect([modeOf(open), modeOf(`${open}-wal`), modeOf(`${open}-shm`)]).toEqual([0o644, 0o644, 0o644]);
      other.close();
    });
  });

  it('keeps the mode of a database file that exists when it opens it', () => {
    const file = join(dir, 'precreated.sqlite');
    createPrivateDatabaseFile(file);
    const db = openSqlite(file);
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    db.close();
    expect(modeOf(file)).toBe(0o600);
  });
});

describe('app state', () => {
  it('is 0600 at every moment, its -wal and -shm too, in a home folder created 0700', async () => {
    await withUmask(0o022, async () => {
      const home = join(dir, 'home');
      makePrivateDir(home);
      const watch = new ModeWatch(home);
      try {
        const core = createCore({ homeDir: home });
        core.keys.create('writes the WAL');
        watch.look();
        await core.shutdown();
      } finally {
        watch.close();
      }
      expect(watch.names(/^app-state\.sqlite(-wal|-shm)?$/).sort()).toEqual([
        APP_STATE_FILE,
        `${APP_STATE_FILE}-shm`,
        `${APP_STATE_FILE}-wal`,
      ]);
      expect(watch.other()).toEqual([]);

      const nested = join(dir, 'new', 'home');
      await createCore({ homeDir: nested }).shutdown();
      expect([modeOf(join(dir, 'new')), modeOf(nested), modeOf(join(nested, APP_STATE_FILE))]).toEqual([0o700, 0o700, 0o600]);
    });
  });
});
