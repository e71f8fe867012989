// Issue 39: a crafted backup was trusted whole. Through the real CLI in child processes, on real
// SQLite files: a backup holding the hash of a key its author knows shows that key (by name, marked
// NEW) before anything changes, and works only after a confirmed restore; `restore` without --yes
// and without a terminal refuses and changes nothing; a trigger in an older-version backup is refused
// and never runs (it would plant a key while the copy is migrated); an `api_keys` VIEW, an extra
// table, an extra index or a trigger in a current backup are refused with one sentence, every
// existing key still working. The backup file itself is never written to.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/core/appState/appStateDb';
import { BACKUP_FORMAT, BACKUP_VERSION } from '../../src/core/appState/backup';
import { BACKUP_INFO_SQL } from '../../src/core/appState/backupSchema';
import { createCore } from '../../src/core/createCore';
import { openSqlite } from '../../src/core/sqlite';
import { cli as runCli } from '../support/cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-crafted-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real CLI; stdin is a pipe, never a terminal. */
const cli = (...args: string[]) => runCli(args);

// A key its author knows, in the app's own format, and its hash as the key store keeps it.
const PLANTED = `adk_${'P'.repeat(43)}`;
const plantedHash = (): Buffer => createHash('sha256').update(PLANTED, 'utf8').digest();
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A home with one working key and one saved audience: the user's own state, which a refused restore must leave alone. */
async function victimHome(name: string): Promise<{ home: string; key: string }> {
  const home = join(dir, name);
  const core = createCore({ homeDir: home });
  try {
    const key = core.keys.create('my key').key;
    core.savedAudiences.save({ name: 'Mine', state: 'CA', filters: [] });
    return { home, key };
  } finally {
    await core.shutdown();
  }
}

/** What a restore would change: every row of the restored tables, as text. */
async function stateOf(home: string): Promise<string> {
  const core = createCore({ homeDir: home });
  try {
    const tables = ['api_keys', 'saved_audiences', 'settings', 'suppression_lists', 'audit_log', 'list_secret'];
    return JSON.stringify(tables.map((t) => core.appState.prepare(`SELECT * FROM ${t} ORDER BY 1`).raw().all()));
  } finally {
    await core.shutdown();
  }
}

async function keyWorks(home: string, key: string): Promise<boolean> {
  const core = createCore({ homeDir: home });
  try {
    return core.keys.verify(key) !== null;
  } finally {
    await core.shutdown();
  }
}

/** A genuine backup of another home (its author's), made by the real CLI. */
async function genuineBackup(name: string): Promise<string> {
  const home = join(dir, `${name}-author`);
  const core = createCore({ homeDir: home });
  try {
    core.keys.create('author key');
    core.savedAudiences.save({ name: 'Theirs', state: 'TX', filters: [] });
  } finally {
    await core.shutdown();
  }
  const file = join(dir, `${name}.backup`);
  const b = await cli('backup', '--home', home, '--out', file);
  expect(b.code, b.stderr).toBe(0);
  return file;
}

function edit(file: string, sql: string): void {
  const db = openSqlite(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

const plantRow = (hashHex: string): string =>
  `INSERT OR REPLACE INTO api_keys (id, name, prefix, hash, created_at) VALUES ('planted', 'helper', 'adk_PPPP', X'${hashHex}', '2026-01-01T00:00:00.000Z')`;

describe('restore shows a backup before it replaces anything, and asks', () => {
  it('a planted key hash is in the summary, marked NEW; without --yes and no terminal nothing changes; confirmed, the key is listed', async () => {
    const { home, key } = await victimHome('planted');
    const file = await genuineBackup('planted');
    edit(file, plantRow(plantedHash().toString('hex')));
    const before = await stateOf(home);
    const fileBefore = sha256(file);

    const refused = await cli('restore', '--from', file, '--home', home);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/API keys: 2 \(2 active; 2 active keys are NEW: not a key of this home now\)/);
    expect(refused.stdout).toMatch(/^ {4}helper {2}adk_PPPP… {2}created 2026-01-01T00:00:00\.000Z {2}NEW: works here after the restore$/m);
    expect(refused.stdout).toMatch(/saved audiences: 1\n {4}Theirs/);
    expect(refused.stderr.trim().split('\n')).toEqual([
      'error: restore replaces app state only when confirmed: nothing was changed; run it again with --yes to restore this backup.',
    ]);
    expect(await stateOf(home)).toBe(before);
    expect(await keyWorks(home, PLANTED)).toBe(false);
    expect(await keyWorks(home, key)).toBe(true);
    expect(readdirSync(home).filter((n) => n.startsWith('.restore-'))).toEqual([]);

    // Confirmed: the decision (SECURITY.md "Backups") is that a backup's keys are the user's own and keep
    // working; the user saw this one by name, marked NEW, before saying yes. It is listed like any key.
    const done = await cli('restore', '--from', file, '--yes', '--home', home);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout.trimEnd().split('\n').at(-1)!)).toMatchObject({ keys: 2, savedAudiences: 1 });
    const listed = await cli('keys', 'list', '--home', home);
    expect(listed.stdout).toContain('helper');
    expect(await keyWorks(home, PLANTED)).toBe(true);
    expect(await keyWorks(home, key)).toBe(false);
    expect(sha256(file)).toBe(fileBefore);
  });

  it('a genuine backup, no --yes, no terminal: refused after the summary, nothing changed', async () => {
    const { home, key } = await victimHome('no-yes');
    const file = await genuineBackup('no-yes');
    const before = await stateOf(home);
    const r = await cli('restore', '--from', file, '--home', home);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Restoring it replaces ALL app state of .* with:/);
    expect(r.stdout).toMatch(/^ {4}author key {2}adk_.{4}… {2}created \S+ {2}NEW: works here after the restore$/m);
    expect(r.stderr).toMatch(/run it again with --yes/);
    expect(await stateOf(home)).toBe(before);
    expect(await keyWorks(home, key)).toBe(true);
  });

  /** restore on a real terminal (util-linux `script` gives it a pty), answering `answer` once it asks. */
  async function restoreOnTerminal(file: string, home: string, answer: string): Promise<{ code: number | null; output: string }> {
    const command = [process.execPath, '--import', 'tsx', 'src/cli/index.ts', 'restore', '--from', file, '--home', home].join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const onData = (c: Buffer): void => {
      output += c.toString('utf8');
      if (output.includes('[y/N]') && child.stdin.writable) child.stdin.end(`${answer}\n`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    return { code, output };
  }

  it.skipIf(!existsSync('/usr/bin/script'))('on a terminal it asks y/N: anything but y changes nothing; y restores', async () => {
    const { home, key } = await victimHome('terminal');
    const file = await genuineBackup('terminal');
    const before = await stateOf(home);
    const no = await restoreOnTerminal(file, home, 'n');
    expect(no.output).toContain('API keys: 1 (1 active; 1 active key is NEW: not a key of this home now)');
    expect(no.output).toMatch(/author key {2}adk_.{4}… {2}created \S+ {2}NEW: works here after the restore/);
    expect(no.output).toContain(`Replace the app state of ${home} with this backup? [y/N]`);
    expect(no.output).toContain('not restored: nothing was changed.');
    expect(no.code).toBe(1);
    expect(await stateOf(home)).toBe(before);
    const yes = await restoreOnTerminal(file, home, 'y');
    expect(yes.code, yes.output).toBe(0);
    expect(yes.output).toMatch(/restored app state of .*: 1 keys, 1 saved audiences/);
    expect(await keyWorks(home, key)).toBe(false);
  });
});

/** A backup as a build with only the first `applied` migrations made it, with `extra` SQL run on it. */
function olderBackup(file: string, applied: number, extra = ''): void {
  const db = openSqlite(file);
  try {
    migrate(db, applied);
    db.exec(BACKUP_INFO_SQL);
    const put = db.prepare('INSERT INTO backup_info (key, value) VALUES (?, ?)');
    put.run('format', BACKUP_FORMAT);
    put.run('version', BACKUP_VERSION);
    put.run('created_at', '2025-12-01T00:00:00.000Z');
    db.prepare("INSERT INTO saved_audiences (name, state, filters, created_at, updated_at) VALUES ('Old one', 'CA', '[]', 'x', 'x')").run();
    db.exec(extra);
  } finally {
    db.close();
  }
}

describe('a crafted backup is refused before anything in it runs, and nothing changes', () => {
  it('an older-version backup restores; the same with a trigger is refused and the trigger never runs', async () => {
    const { home, key } = await victimHome('older');
    // Seven of this build's migrations: restoring it runs the others on a copy, inserting into `migrations`.
    const plain = join(dir, 'older-plain.backup');
    olderBackup(plain, 7);
    const ok = await cli('restore', '--from', plain, '--yes', '--home', home);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/saved audiences: 1\n {4}Old one/);

    const { home: victim, key: victimKey } = await victimHome('older-trigger');
    const crafted = join(dir, 'older-trigger.backup');
    // On each migration the copy records, this would plant a key and take the ClickHouse setting elsewhere.
    olderBackup(
      crafted,
      7,
      `CREATE TRIGGER plant AFTER INSERT ON migrations BEGIN
         ${plantRow(plantedHash().toString('hex'))};
         INSERT OR REPLACE INTO settings (key, value) VALUES ('trigger.ran', '"yes"');
       END;`,
    );
    const before = await stateOf(victim);
    const fileBefore = sha256(crafted);
    const r = await cli('restore', '--from', crafted, '--yes', '--home', victim);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'error: older-trigger.backup holds a trigger named plant, which Audience Desk never makes; it is not a backup as Audience Desk makes it, so nothing was restored.',
    ]);
    expect(r.stdout).toBe('');
    expect(await stateOf(victim)).toBe(before);
    expect(before).not.toContain('trigger.ran');
    expect(await keyWorks(victim, PLANTED)).toBe(false);
    expect(await keyWorks(victim, victimKey)).toBe(true);
    // Not on the file either: it was only read (its copy was refused before any migration ran).
    expect(sha256(crafted)).toBe(fileBefore);
    const file = openSqlite(crafted, { readonly: true });
    try {
      expect(file.prepare('SELECT count(*) FROM api_keys').pluck().get()).toBe(0);
    } finally {
      file.close();
    }
    expect(readdirSync(victim).filter((n) => n.startsWith('.restore-'))).toEqual([]);
    expect(await keyWorks(home, key)).toBe(false); // the first home took the plain backup's (keyless) state
  });

  const CRAFTED: Array<[string, string, RegExp]> = [
    [
      'an api_keys VIEW',
      `DROP TABLE api_keys; CREATE VIEW api_keys AS SELECT 'x' AS id, 'x' AS name, 'x' AS prefix, X'00' AS hash, 'x' AS created_at, NULL AS last_used_at, NULL AS revoked_at WHERE 0;`,
      /holds a view named api_keys where Audience Desk keeps a table;/,
    ],
    ['an extra table', 'CREATE TABLE notes (x TEXT);', /holds a table named notes, which Audience Desk never makes;/],
    [
      'an extra index',
      'CREATE INDEX by_state ON saved_audiences (state);',
      /holds an index named by_state, which Audience Desk never makes;/,
    ],
    [
      'a trigger',
      `CREATE TRIGGER t AFTER DELETE ON settings BEGIN INSERT INTO notes VALUES (1); END; CREATE TABLE notes (x);`,
      /holds a trigger named t, which Audience Desk never makes;/,
    ],
    [
      'a table defined otherwise',
      `DROP TABLE settings; CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT 'x') WITHOUT ROWID;`,
      /holds a table settings defined otherwise than Audience Desk defines it;/,
    ],
  ];

  it.each(CRAFTED)('%s: refused with one sentence, every existing key still works', async (label, sql, sentence) => {
    const slug = label.replace(/\W+/g, '-');
    const { home, key } = await victimHome(`crafted-${slug}`);
    const core = createCore({ homeDir: home });
    const revoked = core.keys.create('revoked one');
    core.keys.revoke(revoked.info.id);
    await core.shutdown();
    const file = await genuineBackup(`crafted-${slug}`);
    edit(file, sql);
    const before = await stateOf(home);
    const r = await cli('restore', '--from', file, '--yes', '--home', home);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(sentence);
    expect(r.stderr).toMatch(/so nothing was restored\.$/m);
    expect(await stateOf(home)).toBe(before);
    expect(await keyWorks(home, key)).toBe(true);
    expect(await keyWorks(home, revoked.key)).toBe(false);
  });
});
