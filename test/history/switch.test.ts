// The dataset history under a kill -9 in the middle of switching: the desktop's remembered dataset
// (`dataset.last`) is always a whole dataset that opens, every dataset the history lists opens and is
// intact, the history never lists a file that is gone, the app starts on the same folder, and the
// next prune leaves exactly the active dataset and the one previous it keeps. Also: deleting is refused
// for the active dataset and for one an export still reads, and a file the app did not make is only
// forgotten, never deleted.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { readDatasetFacts } from '../../src/core/datasets/datasetRef';
import { createCore } from '../../src/core/createCore';
import { Dataset } from '../../src/core/dataset/read/dataset';
import { Settings } from '../../src/main/settings';
import { openSqlite } from '../../src/core/sqlite';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audience-desk-switch-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How many people of `state` the tiny test dataset holds. */
function tinyCount(state: string): number {
  const dataset = Dataset.open(inject('tinyDatasetPath'));
  try {
    return dataset.stateCounts().find((s) => s.state === state)?.count ?? 0;
  } finally {
    dataset.close();
  }
}

function integrity(path: string): string {
  const db = openSqlite(path, { readonly: true, fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

describe('kill -9 during a dataset switch', () => {
  it('leaves a remembered dataset that opens, and a history of whole datasets (8 kills)', async () => {
    const home = join(dir, 'home');
    const log: string[] = [];
    for (let round = 0; round < 8; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/history/fixtures/switchLoop.ts', home, inject('tinyDatasetPath')], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const ready = new Promise<void>((resolve) =>
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          if (out.includes('ready')) resolve();
        }),
      );
      const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, signal) => r(signal)));
      await ready;
      // The kill comes at a random moment of the loop: that is what is tested, not a wait.
      await sleep(Math.round(Math.random() * 400));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const reported = out
        .split('\n')
        .slice(0, -1)
        .filter((l) => l.startsWith('switched '))
        .map((l) => l.slice('switched '.length));

      const core = createCore({ homeDir: home });
      try {
        expect(core.notices).toEqual([]);
        expect(core.appState.pragma('integrity_check', { simple: true })).toBe('ok');
        const last = new Settings(core.appState).get('dataset.last');
        if (reported.length) {
          expect(last).not.toBeNull();
          // One the child switched to (its last reports may be lost with the kill: a pipe is written asynchronously).
          expect(last).toMatch(/\/dataset-\d+-\d+\.sqlite$/);
        }
        if (last) {
          expect(existsSync(last)).toBe(true);
          expect(integrity(last)).toBe('ok');
          core.openDataset(last);
          // Every dataset of the loop is a copy of the tiny one: the same people.
          expect(core.engine.count({ state: 'CA', filters: [] })).toBe(tinyCount('CA'));
        }
        const listed = core.datasets.list().datasets;
        for (const d of listed) {
          expect(existsSync(d.path)).toBe(true);
          expect(integrity(d.path)).toBe('ok');
          Dataset.open(d.path).close();
        }
        // The next prune adopts a dataset published but not yet noted when the kill came, and
        // deletes what a killed prune left: then only the active one and 1 previous remain.
        core.datasets.prune();
        const files = readdirSync(homeLayout(home).datasets).filter((n) => n.endsWith('.sqlite'));
        expect(files.length).toBeLessThanOrEqual(last ? 2 : 1);
        expect(
          core.datasets
            .list()
            .datasets.map((d) => d.path)
            .sort(),
        ).toEqual(files.map((f) => join(homeLayout(home).datasets, f)).sort());
        log.push(`round ${round}: ${reported.length} switches reported; ${listed.length} listed, ${files.length} files`);
      } finally {
        await core.shutdown();
      }
    }
    console.log(log.join('\n'));
  }, 240_000);
});

describe('deleting from the history', () => {
  it('refuses the active dataset and one an export reads; forgets, never deletes, a file the app did not make', async () => {
    const home = join(dir, 'delete-home');
    const external = join(dir, 'external.sqlite');
    copyFileSync(inject('datasetPath'), external);
    const core = createCore({ homeDir: home, datasetPath: external });
    try {
      const managed = join(homeLayout(home).datasets, 'dataset-managed.sqlite');
      mkdirSync(homeLayout(home).datasets, { recursive: true });
      copyFileSync(inject('tinyDatasetPath'), managed);
      const [active] = core.datasets.list().datasets;
      expect(active).toMatchObject({ path: external, active: true, managed: false, inUse: true });
      expect(() => core.datasets.remove(active!.id)).toThrow(/dataset in use/);

      // An export reads the external dataset while the desk switches to the managed one.
      core.datasets.note(managed, readDatasetFacts(managed), false);
      const exportPath = join(dir, 'ca.jsonl');
      const job = await core.audiences.startExport(normalizeAudienceRequest({ state: 'CA', filters: [] }), {
        definition: { state: 'CA', filters: [] },
        format: 'jsonl',
        path: exportPath,
        actor: 'test',
      });
      const managedId = core.datasets.list().datasets.find((d) => d.path === managed)!.id;
      core.switchToDataset(managedId);
      // No turn of the event loop has passed since the export started: it is still reading.
      expect(core.exportJobs.status(job.id).status).toBe('running');
      const during = core.datasets.list().datasets.find((d) => d.path === external)!;
      expect(during.inUse).toBe(true);
      expect(() => core.datasets.remove(during.id)).toThrow(/export is still reading/);
      const done = await core.exportJobs.settled(job.id);
      expect(done.status).toBe('done');
      expect(core.auditLog.list(1)[0]!.dataset?.name).toBe('external');
      // The export lets go of its dataset as it ends.
      await vi.waitFor(() => expect(core.datasets.list().datasets.find((d) => d.path === external)!.inUse).toBe(false));
      core.datasets.remove(during.id);
      expect(existsSync(external)).toBe(true); // forgotten, not deleted: the app did not make it
      expect(core.datasets.list().datasets.map((d) => d.path)).toEqual([managed]);
    } finally {
      await core.shutdown();
    }
  });
});
