// Browser mode's and the CLI's SecretStore: <home>/clickhouse-credentials.json, the CLI's
// --credentials shape, owner-only (0600) from the moment it exists, replaced atomically (a reader
// holding the old file keeps it whole; no temporary file stays behind), and a damaged file is a
// clear error that does not repeat what it holds.
import { mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, readSync, rmSync, statSync, writeFileSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCredentials } from '../../src/core/clickhouse/credentials';
import { CREDENTIALS_FILE, FileSecretStore, credentialsFilePath } from '../../src/core/dataSource/fileSecretStore';

const SECRET = 'pa"ss\\wörd\n with everything 🔑';

describe('FileSecretStore', () => {
  let home: string;
  let store: FileSecretStore;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'audience-desk-filesecrets-'));
    store = new FileSecretStore(credentialsFilePath(home));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('writes the CLI’s credentials shape, mode 0600, and reads it back', async () => {
    expect(await store.load()).toBeNull();
    await store.save({ username: 'reader', password: SECRET });
    const path = join(home, CREDENTIALS_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ user: 'reader', password: SECRET });
    // `cli clickhouse check --credentials <this file>` reads the same file.
    expect(readCredentials(path)).toEqual({ username: 'reader', password: SECRET });
    expect(await store.load()).toEqual({ username: 'reader', password: SECRET });
    expect(store.description).toContain('mode 0600');
    expect(store.description).not.toContain(SECRET);
  });

  it('keeps the address the password was typed for beside it (issue 39); the CLI still reads the file; a record without one loads without one', async () => {
    await store.save({ username: 'reader', password: SECRET, url: 'http://127.0.0.1:8123' });
    const path = credentialsFilePath(home);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ user: 'reader', password: SECRET, url: 'http://127.0.0.1:8123' });
    expect(readCredentials(path)).toEqual({ username: 'reader', password: SECRET });
    expect(await store.load()).toStrictEqual({ username: 'reader', password: SECRET, url: 'http://127.0.0.1:8123' });
    writeFileSync(path, JSON.stringify({ user: 'reader', password: SECRET }), { mode: 0o600 });
    expect(await store.load()).toStrictEqual({ username: 'reader', password: SECRET });
    writeFileSync(path, JSON.stringify({ user: 'reader', password: SECRET, url: ['x'] }), { mode: 0o600 });
    await expect(store.load()).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('keeps the fallback nodes typed with the password (issue 38) only when there are some; a damaged list is an error', async () => {
    const path = credentialsFilePath(home);
    const fallbackUrls = ['http://10.0.0.2:8123', 'https://10.0.0.3:8443'];
    await store.save({ username: 'reader', password: SECRET, url: 'http://10.0.0.1:8123', fallbackUrls });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ user: 'reader', password: SECRET, url: 'http://10.0.0.1:8123', fallbackUrls });
    expect(readCredentials(path)).toEqual({ username: 'reader', password: SECRET });
    expect(await store.load()).toStrictEqual({ username: 'reader', password: SECRET, url: 'http://10.0.0.1:8123', fallbackUrls });
    await store.save({ username: 'reader', password: SECRET, url: 'http://10.0.0.1:8123', fallbackUrls: [] });
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)).toEqual(['user', 'password', 'url']);
    writeFileSync(path, JSON.stringify({ user: 'reader', password: SECRET, url: 'http://10.0.0.1:8123', fallbackUrls: 'x' }), {
      mode: 0o600,
    });
    const error = await store.load().catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'unavailable' });
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('is 0600 even under a permissive umask, and creates a missing home folder owner-only', async () => {
    const nested = new FileSecretStore(join(home, 'new-home', CREDENTIALS_FILE));
    const previous = process.umask(0o000);
    try {
      await nested.save({ username: 'reader', password: SECRET });
    } finally {
      process.umask(previous);
    }
    expect(statSync(join(home, 'new-home', CREDENTIALS_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'new-home')).mode & 0o777).toBe(0o700);
  });

  it('replaces the file atomically: a reader of the old one keeps it whole, nothing temporary stays', async () => {
    await store.save({ username: 'reader', password: 'first-password' });
    const path = credentialsFilePath(home);
    const before = statSync(path).ino;
    const fd = openSync(path, 'r');
    try {
      await store.save({ username: 'loader', password: SECRET });
      // A rename over the file, not a rewrite in place: the old file's bytes are intact behind the open descriptor.
      const buffer = Buffer.alloc(4096);
      const n = readSync(fd, buffer, 0, buffer.length, 0);
      expect(JSON.parse(buffer.subarray(0, n).toString('utf8'))).toEqual({ user: 'reader', password: 'first-password' });
    } finally {
      closeSync(fd);
    }
    expect(statSync(path).ino).not.toBe(before);
    expect(await store.load()).toEqual({ username: 'loader', password: SECRET });
    expect(readdirSync(home)).toEqual([CREDENTIALS_FILE]);
  });

  it('a write that fails leaves the previous credentials and no temporary file', async () => {
    await store.save({ username: 'reader', password: 'kept-password' });
    // The target's place taken by a folder: the rename fails after the temporary file was written.
    const blocked = new FileSecretStore(join(home, 'blocked'));
    mkdirSync(join(home, 'blocked', 'inside'), { recursive: true });
    await expect(blocked.save({ username: 'x', password: SECRET })).rejects.toMatchObject({ code: 'unavailable' });
    await expect(blocked.save({ username: 'x', password: SECRET })).rejects.toThrow(/could not be written/);
    expect(readdirSync(home).sort()).toEqual(['blocked', CREDENTIALS_FILE]);
    expect(await store.load()).toEqual({ username: 'reader', password: 'kept-password' });
  });

  it('a damaged file is a clear error that does not repeat its contents; clear forgets it', async () => {
    writeFileSync(credentialsFilePath(home), `{"user": "reader", "password": "${'leaked-if-echoed'}"`, { mode: 0o600 });
    const error = await store.load().catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/cannot be read; enter the password again/) });
    expect((error as Error).message).not.toContain('leaked-if-echoed');
    await store.clear();
    expect(await store.load()).toBeNull();
    await store.clear(); // nothing stored: nothing to do
  });
});
