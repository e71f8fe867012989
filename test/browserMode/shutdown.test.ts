// The one shutdown, through `serve`: SIGTERM while a browser-mode import is running stops the
// import, writes its audit entry, removes its unfinished dataset file and exits 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatasetSql } from '../support/datasetSql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCore } from '../../src/core/createCore';
import { homeLayout } from '../../src/core/appState/homeLayout';
import { CSV_HEADER, storedRecordToCsvLine } from '../../src/core/dataset/codec/recordFormat';
import { RPC_TOKEN_HEADER } from '../../src/shared/rpcPaths';
import { ensureBuilt } from '../packaging/ensureBuilt';

let home: string;

/** Every record of the test dataset, `copies` times over (later copies replace earlier ones): an import that takes seconds. */
async function writeVendorFile(path: string, copies: number): Promise<number> {
  const db = openDatasetSql(inject('datasetPath'));
  const texts = db.prepare('SELECT record FROM records ORDER BY _pos').pluck().all() as string[];
  db.close();
  const out = createWriteStream(path);
  out.write(CSV_HEADER + '\r\n');
  for (let c = 0; c < copies; c++) {
    for (let i = 0; i < texts.length; i += 1000) {
      if (
        !out.write(
          texts
            .slice(i, i + 1000)
            .map(storedRecordToCsvLine)
            .join('\r\n') + '\r\n',
        )
      )
        await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  return texts.length * copies;
}

beforeAll(async () => {
  await ensureBuilt();
  home = mkdtempSync(join(tmpdir(), 'audience-desk-shutdown-'));
  mkdirSync(homeLayout(home).imports, { recursive: true });
  await writeVendorFile(join(homeLayout(home).imports, 'vendor.csv'), 3);
}, 300_000);

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

function startServe(): { child: ChildProcess; ready: Promise<{ api: string; token: string }>; stderr: () => string } {
  // As `npm run serve` runs it: tsx as a loader in the one process. (The tsx command would relay the
  // signal and SIGKILL a process that does not answer within 30 ms, as one busy importing does not.)
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/index.ts', 'serve', '--db', inject('datasetPath'), '--port', '0', '--home', home],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const ready = new Promise<{ api: string; token: string }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const ui = /^ui: (\S+)$/m.exec(out);
      if (ui) resolve({ api: /^api: (\S+)$/m.exec(out)![1]!, token: new URL(ui[1]!).searchParams.get('token')! });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before it was ready: ${out}`)));
  });
  return { child, ready, stderr: () => err };
}

describe('serve on SIGTERM', () => {
  it('stops a running browser-mode import, audits it as cancelled and exits 0', async () => {
    const { child, ready, stderr } = startServe();
    const { api, token } = await ready;
    const rpc = async (op: string, body: unknown): Promise<any> => {
      const r = await fetch(`${api}/ui/rpc/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [RPC_TOKEN_HEADER]: token },
        body: JSON.stringify(body),
      });
      return ((await r.json()) as { value: unknown }).value;
    };
    const pick = await rpc('import/pick', {});
    expect(pick.files).toHaveLength(1);
    const job = await rpc('import/start', { files: pick.files });
    expect(job.status).toBe('running');
    let status = job;
    while (status.status === 'running' && status.rowsRead === 0) status = await rpc('import/status', { id: job.id });
    expect(status.status).toBe('running');

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code, stderr()).toBe(0);

    const core = createCore({ homeDir: home });
    try {
      const [entry] = core.auditLog.list(1);
      expect(entry).toMatchObject({ action: 'import', outcome: 'cancelled' });
    } finally {
      await core.shutdown();
    }
    // Nothing half-written is left among the datasets the app made.
    const datasets = homeLayout(home).datasets;
    expect(existsSync(datasets) ? readdirSync(datasets) : []).toEqual([]);
  }, 120_000);
});
