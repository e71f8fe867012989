// Browser mode's import inbox (`<home>/imports/`) offers and reads regular files only. A symbolic
// link there (to a file outside holding a header line) is not listed by lists/pick or import/pick,
// not read by lists/import, and its header is not shown by import/inspect; a picked file swapped for
// a link afterwards is refused when it is opened (src/core/fs/regularFile.ts), and so is one
// swapped for a FIFO, at once, without waiting for a writer. The CLI, whose user types the path,
// still follows a link.
import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { importFiles } from '../../src/core/import/importFiles';
import { openSource, inspectSource } from '../../src/core/import/source/sourceFile';
import { browserImportPick } from '../../src/server/uiImportInbox';
import type { ImportJob } from '../../src/shared/contract';
import { failure, startHandlers, type HandlerHarness } from '../handlers/harness';
import { tempDir } from '../import/helpers';

const SECRET_COLUMN = 'OUTSIDE_ONLY_COLUMN';
const HEADER = `PID,STATE,GENDER,PHONE,${SECRET_COLUMN}`;
const ROW = '0123456789ABCDEF0123456789ABCDEF,CA,F,2125550123,x';

let t: HandlerHarness;
let inbox: string;
let outside: string;
let secret: string;
const inInbox = (name: string): string => join(inbox, name);

beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'), { pickImportFiles: () => browserImportPick(t.api.core.homeDir)() });
  inbox = homeLayout(t.api.core.homeDir).imports;
  mkdirSync(inbox, { recursive: true });
  outside = tempDir('audience-desk-outside-');
  secret = join(outside, 'secret.csv');
  writeFileSync(secret, `${HEADER}\n${ROW}\n`);
  writeFileSync(inInbox('vendor.csv'), `PID,STATE,GENDER,PHONE\n${ROW.slice(0, ROW.lastIndexOf(','))}\n`);
  writeFileSync(inInbox('.hidden.csv'), 'PID\n');
  symlinkSync(secret, inInbox('link.csv'));
  execFileSync('mkfifo', [inInbox('pipe.csv')]);
});
afterAll(async () => {
  await t.close();
  rmSync(outside, { recursive: true, force: true });
});

/** Replaces the inbox's vendor.csv by `make(path)` for `run`, then puts it back. */
async function swapped<T>(make: (path: string) => void, run: (path: string) => Promise<T>): Promise<T> {
  const path = inInbox('vendor.csv');
  renameSync(path, inInbox('.vendor.kept'));
  try {
    make(path);
    return await run(path);
  } finally {
    rmSync(path, { force: true });
    renameSync(inInbox('.vendor.kept'), path);
  }
}

async function ended(id: string): Promise<ImportJob> {
  for (;;) {
    const job = await t.h['import/status']({ id });
    if (job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 5));
  }
}

// mkfifo, and symbolic links as an ordinary user: not on Windows.
describe.skipIf(process.platform === 'win32')('the import inbox', () => {
  it('offers its regular files only: not a link, not a FIFO, not a hidden file', async () => {
    const expected = [inInbox('vendor.csv')];
    expect((await t.h['lists/pick']({})).files).toEqual(expected);
    expect((await t.h['import/pick']({})).files).toEqual(expected);
  });

  it("never reads a link's target: not picked, so neither lists/import nor import/inspect opens it", async () => {
    await t.h['lists/pick']({});
    await t.h['import/pick']({});
    expect(await failure(t.h['lists/import']({ file: inInbox('link.csv'), name: 'Linked' }))).toMatchObject({ code: 'forbidden' });
    const inspect = await failure(t.h['import/inspect']({ files: [inInbox('link.csv')] }));
    expect(inspect).toMatchObject({ code: 'forbidden' });
    expect(inspect.message).not.toContain(SECRET_COLUMN);
    expect(await t.h['lists/list']({})).toEqual([]);
  });

  it('refuses a picked file that became a link, without reading what it names', async () => {
    await t.h['lists/pick']({});
    await t.h['import/pick']({});
    await swapped(
      (path) => symlinkSync(secret, path),
      async (path) => {
        const list = await failure(t.h['lists/import']({ file: path, name: 'Swapped' }));
        expect(list).toMatchObject({ code: 'invalid_request', field: 'file' });
        expect(list.message).toMatch(/symbolic link/);
        const plan = await t.h['import/inspect']({ files: [path] });
        expect(plan.ready).toBe(false);
        expect(plan.files[0]).toMatchObject({ columns: [], bytes: 0 });
        expect(plan.files[0]!.error).toMatch(/symbolic link/);
        expect(JSON.stringify(plan)).not.toContain(SECRET_COLUMN);
        const job = await ended((await t.h['import/start']({ files: [path] })).id);
        expect(job).toMatchObject({ status: 'failed' });
        expect(job.error).toMatch(/symbolic link/);
      },
    );
    expect(await t.h['lists/list']({})).toEqual([]);
  });

  it('refuses a picked file that became a FIFO at once, without waiting for a writer', async () => {
    await t.h['lists/pick']({});
    await t.h['import/pick']({});
    let rescuer: ChildProcess | undefined;
    await swapped(
      (path) => {
        execFileSync('mkfifo', [path]);
        // Should the FIFO be opened, this writer (after 3 s, then again and again) lets the open
        // return, so the test fails on the time it took instead of hanging.
        const code = `setTimeout(() => { for (;;) require('node:fs').writeFileSync(${JSON.stringify(path)}, 'PID\\n'); }, 3000)`;
        rescuer = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
      },
      async (path) => {
        try {
          const started = Date.now();
          const list = await failure(t.h['lists/import']({ file: path, name: 'Piped' }));
          expect(list.message).toMatch(/not a regular file/);
          const plan = await t.h['import/inspect']({ files: [path] });
          expect(plan.files[0]!.error).toMatch(/not a regular file/);
          const job = await ended((await t.h['import/start']({ files: [path] })).id);
          expect(job.error).toMatch(/not a regular file/);
          expect(Date.now() - started).toBeLessThan(2000);
        } finally {
          rescuer?.kill('SIGKILL');
        }
      },
    );
    // The FIFO that was there all along did not hang the listing either.
    expect((await t.h['lists/pick']({})).files).toEqual([inInbox('vendor.csv')]);
  });
});

describe.skipIf(process.platform === 'win32')('opening an import file', () => {
  it('the CLI (followLinks) still imports through a link; a file replaced since it was inspected is refused', async () => {
    const dir = tempDir('audience-desk-links-');
    try {
      const link = join(dir, 'link.csv');
      symlinkSync(secret, link);
      const summary = await importFiles({ files: [link], out: join(dir, 'linked.sqlite'), followLinks: true });
      expect(summary).toMatchObject({ read: 1, imported: 1 });
      await expect(importFiles({ files: [link], out: join(dir, 'refused.sqlite') })).rejects.toThrow(/symbolic link/);

      const file = join(dir, 'file.csv');
      writeFileSync(file, `${HEADER}\n${ROW}\n`);
      const info = inspectSource(file);
      writeFileSync(join(dir, 'other.csv'), `${HEADER}\n${ROW}\n`);
      renameSync(join(dir, 'other.csv'), file);
      expect(() => openSource(info)).toThrow(/replaced by another file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
