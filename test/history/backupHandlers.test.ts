// Backups from the app, through the handler table over a real core (as Electron's IPC and browser
// mode carry it): made into <home>/backups, listed, shown (backup/preview) and then restored by name
// only (never a path) with the fingerprint the preview answered, start-up notices empty on a healthy
// home, and a full disk met by an app-state write answered as such.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore } from '../../src/core/createCore';
import { createHandlers } from '../../src/core/handlers';
import { failure, startHandlers, type HandlerHarness } from '../handlers/harness';

let t: HandlerHarness;
beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'));
});
afterAll(async () => {
  await t.close();
});

describe('backups in the app', () => {
  it('backs up into <home>/backups, lists it, and restores it by name', async () => {
    const kept = await t.h['keys/create']({ name: 'kept' });
    await t.h['audiences/save']({ name: 'Kept audience', state: 'CA', filters: [['GENDER', ['F']]] });
    const made = await t.h['backup/create']({});
    expect(made.path).toBe(join(t.api.core.homeDir, 'backups', made.name));
    expect(statSync(made.path).mode & 0o777).toBe(0o600);
    expect((await t.h['backup/list']({})).backups.map((b) => b.name)).toContain(made.name);

    // Changes after the backup: a new key, the kept one revoked, the audience gone.
    const later = await t.h['keys/create']({ name: 'later' });
    await t.h['keys/revoke']({ id: kept.info.id });
    for (const a of await t.h['audiences/list']({})) await t.h['audiences/delete']({ id: a.id });

    // Shown first: what it would bring, nothing changed yet.
    const preview = await t.h['backup/preview']({ name: made.name });
    expect(preview).toMatchObject({ name: made.name, savedAudiences: ['Kept audience'], counts: { savedAudiences: 1 } });
    expect(preview.keys.find((k) => k.name === 'kept')).toMatchObject({ revoked: false, inThisHome: true });
    expect(t.api.core.keys.verify(kept.key)).toBeNull();
    expect(t.api.core.keys.verify(later.key)).not.toBeNull();
    // A fingerprint other than the one shown: refused, nothing changes.
    expect(await failure(t.h['backup/restore']({ name: made.name, fingerprint: '0'.repeat(64) }))).toMatchObject({
      code: 'invalid_request',
      field: 'fingerprint',
    });
    expect(t.api.core.keys.verify(later.key)).not.toBeNull();

    const summary = await t.h['backup/restore']({ name: made.name, fingerprint: preview.fingerprint });
    expect(summary).toMatchObject({ savedAudiences: 1 });
    expect(t.api.core.keys.verify(kept.key)).not.toBeNull();
    expect(t.api.core.keys.verify(later.key)).toBeNull();
    expect((await t.h['audiences/list']({})).map((a) => a.name)).toEqual(['Kept audience']);
    // The restored key answers over the real API at once.
    const r = await fetch(`${t.api.url}/api/audiences/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': kept.key },
      body: JSON.stringify({ state: 'CA', limit: 1 }),
    });
    expect(r.status).toBe(200);
  });

  it('restores only a backup of <home>/backups named as listed: never a path', async () => {
    const fingerprint = '0'.repeat(64);
    for (const name of ['../app-state.sqlite', '/etc/passwd', 'sub/x.sqlite', '.hidden.sqlite', 'notes.txt']) {
      expect(await failure(t.h['backup/preview']({ name }))).toMatchObject({ code: 'invalid_request', field: 'name' });
      expect(await failure(t.h['backup/restore']({ name, fingerprint }))).toMatchObject({ code: 'invalid_request', field: 'name' });
    }
    expect(await failure(t.h['backup/preview']({ name: 'missing.sqlite' }))).toMatchObject({ code: 'not_found' });
    expect(await failure(t.h['backup/restore']({ name: 'missing.sqlite', fingerprint }))).toMatchObject({ code: 'not_found' });
    writeFileSync(join(t.api.core.homeDir, 'backups', 'fake.sqlite'), 'not a backup'.repeat(100));
    expect(await failure(t.h['backup/preview']({ name: 'fake.sqlite' }))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/fake\.sqlite is not an Audience Desk backup/),
    });
  });

  it('app/notices is empty on a healthy home', async () => {
    expect(await t.h['app/notices']({})).toEqual({ notices: [] });
  });
});

describe.skipIf(process.getuid?.() !== 0)('a full disk under the app (a 1 MB tmpfs; needs root)', () => {
  it('an app-state write answers that the disk is full, naming the file, instead of a generic failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audience-desk-app-full-'));
    const disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk]);
    const core = createCore({ homeDir: join(disk, 'home') });
    try {
      const h = createHandlers(core, {
        resolveExportPath: async () => null,
        pickImportFiles: async () => ({ files: [], inbox: null }),
        apiStatus: () => ({ url: null, running: false, recent: [] }),
        logError: () => undefined,
      });
      const free = Number(execFileSync('df', ['--output=avail', '-B1', disk], { encoding: 'utf8' }).trim().split('\n').pop());
      writeFileSync(join(disk, 'filler'), Buffer.alloc(Math.max(0, free - 8192)));
      let e: { code: string; message: string } | null = null;
      // Saved audiences until the WAL cannot grow.
      for (let i = 0; i < 2000 && !e; i++) {
        const filters: Array<[string, string[]]> = [
          ['GENDER', ['F']],
          ['CITY', Array.from({ length: 50 }, (_, j) => `CITY ${i} ${j}`)],
        ];
        e = await h['audiences/save']({ name: `audience ${i}`, state: 'CA', filters }).then(
          () => null,
          (err: { code: string; message: string }) => err,
        );
      }
      expect(e).toMatchObject({ code: 'unavailable' });
      expect(e!.message).toMatch(/^The disk is full: .*app-state\.sqlite could not be written\. It needs about 64\.0 KB/);
    } finally {
      await core.shutdown();
      execFileSync('umount', [disk]);
      rmSync(dir, { recursive: true, force: true });
      expect(existsSync(disk)).toBe(false);
    }
  });
});
