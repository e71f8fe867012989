// The app's way in to match and append and consumer opt-outs (match/*, optouts/*): only a file the
// transport's pick handed out is read (a path the renderer makes up is refused and nothing is stored
// or written), a bad field is a 400 naming `fields`, a dismissed save dialog writes nothing, and the
// matched file goes where exports go.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { browserImportPick } from '../../src/server/uiImportInbox';
import { failure, startHandlers, type HandlerHarness } from '../handlers/harness';
import { readPeople } from './matchData';

let t: HandlerHarness;
let inbox: string;
beforeAll(async () => {
  t = await startHandlers(inject('datasetPath'), { pickImportFiles: () => browserImportPick(t.api.core.homeDir)() });
  inbox = homeLayout(t.api.core.homeDir).imports;
  mkdirSync(inbox, { recursive: true });
  const [a, b] = readPeople(inject('datasetPath'));
  writeFileSync(join(inbox, 'customers.csv'), `PID,First,Last\n${a!.PID},${a!.FNAME},${a!.LNAME}\n${b!.PID},${b!.FNAME},${b!.LNAME}\n`);
  writeFileSync(join(t.api.core.homeDir, 'elsewhere.csv'), `PID\n${a!.PID}\n`);
});
afterAll(async () => {
  await t.close();
});

describe('customer file handlers', () => {
  it('read only picked files', async () => {
    const elsewhere = join(t.api.core.homeDir, 'elsewhere.csv');
    expect(await failure(t.h['optouts/import']({ file: elsewhere }))).toMatchObject({ code: 'forbidden', field: 'file' });
    expect(await failure(t.h['match/run']({ file: elsewhere, fields: ['GENDER'] }))).toMatchObject({ code: 'forbidden', field: 'file' });
    expect(await t.h['optouts/list']({})).toEqual([]);
    expect(readdirSync(t.exportDir)).toEqual([]);
  });

  it('match a picked file into the exports folder, refuse an unknown field, and write nothing when the dialog is dismissed', async () => {
    const pick = await t.h['match/pick']({});
    const file = pick.files.find((f) => f.endsWith('customers.csv'))!;
    expect(await failure(t.h['match/run']({ file, fields: ['GENDER', 'NOPE'] }))).toMatchObject({
      code: 'invalid_request',
      field: 'fields',
    });
    t.dialog.answer = 'dismiss';
    expect(await t.h['match/run']({ file, fields: ['GENDER'] })).toMatchObject({ path: null, rows: 0 });
    expect(readdirSync(t.exportDir)).toEqual([]);
    t.dialog.answer = 'accept';
    const done = await t.h['match/run']({ file, fields: ['GENDER'], keep: 'Two customers' });
    expect(done).toMatchObject({ rows: 2, matched: 2, byMethod: { pid: 2, address: 0, phone: 0 } });
    expect(done.path!.startsWith(t.exportDir)).toBe(true);
    expect(existsSync(done.path!)).toBe(true);
    expect((await t.h['lists/list']({})).map((l) => l.name)).toContain('Two customers');
  });
});
