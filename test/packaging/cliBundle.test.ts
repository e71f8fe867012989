// The headless CLI as the bundle a shipped tool runs (cli.vite.config.ts, out/cli): every worker the
// sources start is an entry beside the chunks that start it (else the import, verify and scans fall
// back to one thread without a word), and an import through the bundle writes the very records the
// sources write, rejects included.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_FIXTURES, integrity, readRejects, recordsByPid, tempDir } from '../import/helpers';
import { ensureCliBuilt } from './ensureBuilt';
import { workersStartedIn } from './workersStarted';

let entry: string;
let dir: string;
beforeAll(async () => {
  entry = await ensureCliBuilt();
  dir = tempDir('audience-desk-cli-bundle-');
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The summary line of `import`, run with this Node and no tsx loader. */
function importWith(args: string[], out: string): { read: number; imported: number; rejected: number; replaced: number } {
  const stdout = execFileSync(process.execPath, [...args, 'import', ...ALL_FIXTURES, '--out', out, '--rejects', `${out}.rejects.csv`], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { read: number; imported: number; rejected: number; replaced: number };
}

describe('the CLI bundle (out/cli)', () => {
  it('has every worker the sources start as an entry beside each chunk that starts one', () => {
    const folder = dirname(entry);
    const bundled = readdirSync(folder).filter((f) => f.endsWith('.js'));
    const started = workersStartedIn('src');
    expect(started).toEqual(expect.arrayContaining(['readWorker', 'orderWorker', 'blockWorker', 'verifyWorker', 'scanWorker']));
    for (const name of started) expect(bundled, name).toContain(`${name}.js`);
    // The chunks that call startWorker (the commands' chunks, loaded when asked for) all sit in the
    // one folder, so `./<name>.js` resolves beside them.
    const starting = bundled.filter((f) => /startWorker\("\w+"/.test(readFileSync(join(folder, f), 'utf8')));
    expect(starting.length).toBeGreaterThan(0);
    for (const f of starting)
      for (const m of readFileSync(join(folder, f), 'utf8').matchAll(/startWorker\("(\w+)"/g))
        expect(existsSync(join(folder, `${m[1]!}.js`)), `${f} starts ${m[1]!}`).toBe(true);
  });

  it('imports vendor files to the same records and rejects as the sources do', () => {
    const fromBundle = join(dir, 'bundle.sqlite');
    const fromSource = join(dir, 'source.sqlite');
    const bundled = importWith([entry], fromBundle);
    const source = importWith(['--import', 'tsx', join('src', 'cli', 'index.ts')], fromSource);
    expect(bundled).toMatchObject({ read: 32, imported: 16, rejected: 16, replaced: 3 });
    expect({ ...bundled, seconds: 0 }).toEqual({ ...source, seconds: 0 });
    expect(integrity(fromBundle)).toEqual({ check: 'ok', records: 13 });
    expect(recordsByPid(fromBundle)).toEqual(recordsByPid(fromSource));
    expect(readRejects(`${fromBundle}.rejects.csv`)).toEqual(readRejects(`${fromSource}.rejects.csv`));
    const verified = execFileSync(process.execPath, [entry, 'verify', '--db', fromBundle], { encoding: 'utf8' });
    expect(verified).toMatch(/^ok: /);
  });
});
