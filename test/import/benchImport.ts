// Import speed, end to end, on files made by the app itself: generate ROWS records, export them with
// exportAudience one CSV per state, import the 51 files. Not a test (vitest ignores it); run:
//   export PATH=$PWD/node_modules/.bin:$PATH && tsx test/import/benchImport.ts [rows=200000] [--single]
// --single imports one file holding every record, in random order, instead of 51 sorted ones.
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Core } from '../../src/core/createCore';
import { exportAudience } from '../../src/core/export/exportAudience';
import { generateDataset } from '../../src/core/generate';
import { importFiles, type ImportProgress } from '../../src/core/import/importFiles';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { STATE_CODES } from '../../src/shared/states';

const rows = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 200_000);
const single = process.argv.includes('--single');
const dir = mkdtempSync(join(tmpdir(), 'audience-desk-bench-import-'));
try {
  const source = join(dir, 'source.sqlite');
  generateDataset({ rows, seed: 1, out: source });
  const core = new Core({ homeDir: join(dir, 'home'), datasetPath: source });
  const files: string[] = [];
  for (const state of STATE_CODES) {
    const outPath = join(dir, `${state}.csv`);
    await exportAudience(core.engine, normalizeAudienceRequest({ state, filters: [] }), { format: 'csv', outPath });
    files.push(outPath);
  }
  core.close();
  let inputs = files;
  if (single) {
    // Every data line of the 51 files, shuffled (records may span lines only inside quotes; the
    // generator's values hold no line breaks), under one header.
    const lines: string[] = [];
    let header = '';
    for (const f of files) {
      const [h, ...rest] = readFileSync(f, 'utf8').split('\r\n');
      header = h!;
      lines.push(...rest.filter((l) => l !== ''));
    }
    let x = 7;
    for (let i = lines.length - 1; i > 0; i--) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const j = x % (i + 1);
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    }
    const all = join(dir, 'all.csv');
    const ws = createWriteStream(all);
    ws.write(header + '\r\n');
    for (let i = 0; i < lines.length; i += 10_000) if (!ws.write(lines.slice(i, i + 10_000).join('\r\n') + '\r\n')) await once(ws, 'drain');
    ws.end();
    await once(ws, 'finish');
    inputs = [all];
  }
  let readDone = 0;
  let peakRss = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await importFiles({
    files: inputs,
    out: join(dir, 'imported.sqlite'),
    onProgress: (p: ImportProgress) => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      if (p.phase === 'writing' && !readDone) readDone = performance.now() - t0;
    },
  });
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    JSON.stringify({
      files: inputs.length,
      read: summary.read,
      records: summary.records,
      seconds: Number(wall.toFixed(2)),
      rowsPerSecond: Math.round(summary.read / wall),
      readPhaseSeconds: Number((readDone / 1000).toFixed(2)),
      writePhaseSeconds: Number((wall - readDone / 1000).toFixed(2)),
      cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
      peakRssMB: Math.round(peakRss / 1e6),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
