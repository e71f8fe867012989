// A generated dataset is owner-only from its first byte (src/core/fs/privateFile.ts), under a umask
// of 022: the file being built (`<out>.building-<pid>`) and its vectors' spill while they exist,
// then the published file, through the core and through `generate --out`.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../src/core/generate';
import { modeOf, ModeWatch, withUmask } from '../support/modeWatch';

const run = promisify(execFile);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-generate-modes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated datasets are 0600 from their first byte', () => {
  it('generateDataset: the building file and its vectors spill while they are written, then the dataset', async () => {
    const out = join(dir, 'core.sqlite');
    const watch = new ModeWatch(dir);
    try {
      // Progress comes while the building file and its spill exist: each look reads their modes then.
      await withUmask(0o022, () => generateDataset({ rows: 12_000, seed: 3, out, onProgress: () => watch.look() }));
    } finally {
      watch.close();
    }
    const building = [...watch.looked].filter((n) => /^core\.sqlite\.building-\d+$/.test(n));
    const spill = [...watch.looked].filter((n) => /^core\.sqlite\.building-\d+-vectors$/.test(n));
    expect([building.length, spill.length]).toEqual([1, 1]);
    expect(watch.other()).toEqual([]);
    expect(modeOf(out)).toBe(0o600);
  });

  it('generate --out: every file seen while the command runs, and the dataset', async () => {
    const sub = mkdtempSync(join(dir, 'cli-'));
    const out = join(sub, 'cli.sqlite');
    const watch = new ModeWatch(sub);
    try {
      // The child inherits the umask; this process watches while it writes.
      await withUmask(0o022, () =>
        run(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'generate', '--rows', '5000', '--seed', '5', '--out', out]),
      );
    } finally {
      watch.close();
    }
    expect(watch.names(/^cli\.sqlite\.building-\d+$/)).toHaveLength(1);
    expect(watch.other()).toEqual([]);
    expect(modeOf(out)).toBe(0o600);
  });
});
