// An import's files are owner-only from their first byte (src/core/fs/privateFile.ts), under a umask
// of 022: the staging file, each reader's vector spill, the dataset being built and the rejects
// file's partial while they exist, then the dataset and the rejects file, through the core, through
// `import --out` and through the app's import handler (whose datasets folder is 0700).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { overrideSettings } from '../../src/core/config';
import { importFiles } from '../../src/core/import/importFiles';
import { fieldIndex } from '../../src/shared/fields';
import { startHandlers } from '../handlers/harness';
import { modeOf, ModeWatch, withUmask } from '../support/modeWatch';
import { readRecords, tempDir, writeCsv } from './helpers';

const run = promisify(execFile);
let dir: string;
let input: string;
beforeAll(() => {
  dir = tempDir('audience-desk-import-modes-');
  input = join(dir, 'vendor.csv');
  const pid = fieldIndex('PID');
  // Some rows rejected, so the rejects file holds rows (personal data) too.
  const records = readRecords(inject('datasetPath'))
    .slice(0, 10_000)
    .map((r, i) => (i < 20 ? r.map((v, f) => (f === pid ? 'not a pid' : v)) : r));
  writeCsv(input, records);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The temporary files of an import to `<name>`, by kind (src/core/import/tempFiles.ts). */
const kinds = (name: string) => ({
  staging: new RegExp(`^${name}\\.staging-\\d+$`),
  spill: new RegExp(`^${name}\\.building-\\d+-vectors-\\d+r[01]$`),
  building: new RegExp(`^${name}\\.building-\\d+$`),
  rejects: new RegExp(`^\\.${name}\\.rejects\\.csv\\.partial-\\d+$`),
});

describe('import files are 0600 from their first byte', () => {
  it('importFiles: staging, spills, the building dataset and the rejects partial while they exist, then the results', async () => {
    const sub = mkdtempSync(join(dir, 'core-'));
    const out = join(sub, 'core.sqlite');
    const watch = new ModeWatch(sub);
    const restore = overrideSettings({ importSplitBytes: 1 }); // two readers, two spills
    try {
      // Progress comes while reading (staging, spills, rejects partial) and while writing (the dataset being built).
      await withUmask(0o022, () => importFiles({ files: [input], out, onProgress: () => watch.look() }));
    } finally {
      restore();
      watch.close();
    }
    const looked = [...watch.looked];
    for (const [kind, pattern] of Object.entries(kinds('core.sqlite')))
      expect(looked.filter((n) => pattern.test(n)).length, kind).toBeGreaterThanOrEqual(kind === 'spill' ? 2 : 1);
    expect(watch.other()).toEqual([]);
    expect([modeOf(out), modeOf(`${out}.rejects.csv`)]).toEqual([0o600, 0o600]);
  });

  it('import --out: every file seen while the command runs, and the results', async () => {
    const sub = mkdtempSync(join(dir, 'cli-'));
    const out = join(sub, 'cli.sqlite');
    const watch = new ModeWatch(sub);
    try {
      await withUmask(0o022, () =>
        run(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'import', input, '--out', out], {
          env: { ...process.env, AUDIENCE_DESK_IMPORT_SPLIT_BYTES: '1' },
        }),
      );
    } finally {
      watch.close();
    }
    const { staging, building } = kinds('cli.sqlite');
    expect([watch.names(staging).length, watch.names(building).length]).toEqual([1, 1]);
    expect(watch.other()).toEqual([]);
    expect([modeOf(out), modeOf(`${out}.rejects.csv`)]).toEqual([0o600, 0o600]);
  });

  it("the app's import (import/start): its files in <home>/datasets while they exist, the folder 0700", async () => {
    const t = await startHandlers(inject('datasetPath'));
    const datasets = homeLayout(t.api.core.homeDir).datasets;
    try {
      await withUmask(0o022, async () => {
        t.importPick.files = [input];
        const [file] = (await t.h['import/pick']({})).files;
        const { id } = await t.h['import/start']({ files: [file] });
        const watch = new ModeWatch(datasets);
        let job;
        try {
          // Polled while it runs: each poll reads the modes of what is there then.
          for (;;) {
            watch.look();
            job = await t.h['import/status']({ id });
            if (job.status !== 'running') break;
            if (job.phase === 'confirm') await t.h['import/confirm']({ id, switch: false });
            await new Promise((r) => setTimeout(r, 2));
          }
        } finally {
          watch.close();
        }
        expect(job.status, JSON.stringify(job)).toBe('done');
        const name = job.result!.dataset.split('/').pop()!.replace(/\./g, '\\.');
        // Seen by a poll or, for the dataset being built (written between two polls), by fs.watch.
        for (const kind of ['staging', 'building', 'rejects'] as const) expect(watch.names(kinds(name)[kind]), kind).toHaveLength(1);
        expect(watch.other()).toEqual([]);
        expect([modeOf(datasets), modeOf(job.result!.dataset), modeOf(job.rejectsPath!)]).toEqual([0o700, 0o600, 0o600]);
      });
    } finally {
      await t.close();
    }
  });
});
