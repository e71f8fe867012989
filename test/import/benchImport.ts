// Import speed, end to end, on files made by the app itself: generate ROWS records, export them with
// exportAudience one CSV per state, import the 51 files. Not a test (vitest ignores it); run:
//   export PATH=$PWD/node_modules/.bin:$PATH && tsx test/import/benchImport.ts [rows=200000] [--single] [--inputs DIR]
// --single imports one file holding every record, in random order, instead of 51 files in the
// exports' order (both go through the staging file and its sort).
// --inputs DIR keeps the generated files in DIR and reuses them on the next run (generating and
// exporting 200,000 records takes longer than importing them).
// The machine is shared: CPU time (this process, worker thread included) is reported beside wall
// time, and rows per CPU-second is the figure that does not depend on what else runs.
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Core } from '../../src/core/createCore';
import { exportAudience } from '../../src/core/export/exportAudience';
import { generateDataset } from '../../src/core/generate';
import { importFiles, type ImportProgress } from '../../src/core/import/importFiles';
import { stagingPathFor } from '../../src/core/import/tempFiles';
import { normalizeAudienceRequest } from '../../src/shared/audienceRequest';
import { STATE_CODES } from '../../src/shared/states';

const rows = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 200_000);
const single = process.argv.includes('--single');
const inputsAt = process.argv.indexOf('--inputs');
const keep = inputsAt > 0 ? join(process.argv[inputsAt + 1]!, String(rows)) : undefined;
const dir = keep ?? mkdtempSync(join(tmpdir(), 'audience-desk-bench-import-'));

async function makeInputs(): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files = STATE_CODES.map((state) => join(dir, `${state}.csv`));
  const all = join(dir, 'all.csv');
  if (existsSync(all)) return single ? [all] : files; // kept from an earlier run (--inputs)
  const source = join(dir, 'source.sqlite');
  generateDataset({ rows, seed: 1, out: source });
  const core = new Core({ homeDir: join(dir, 'home'), datasetPath: source });
  for (const [i, state] of STATE_CODES.entries())
    await exportAudience(core.engine, normalizeAudienceRequest({ state, filters: [] }), { format: 'csv', outPath: files[i]! });
  await core.shutdown();
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
  const ws = createWriteStream(all);
  ws.write(header + '\r\n');
  for (let i = 0; i < lines.length; i += 10_000) if (!ws.write(lines.slice(i, i + 10_000).join('\r\n') + '\r\n')) await once(ws, 'drain');
  ws.end();
  await once(ws, 'finish');
  return single ? [all] : files;
}

const out = join(dir, 'imported.sqlite');
try {
  const inputs = await makeInputs();
  let readDone = 0;
  // The staging file is whole once reading ends (writing only reads it back): its size then is the
  // import's scratch room, beside the inputs' own size.
  let stagingBytes = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await importFiles({
    files: inputs,
    out,
    onProgress: (p: ImportProgress) => {
      if (p.phase === 'reading') readDone = performance.now() - t0;
      else if (stagingBytes === 0) stagingBytes = statSync(stagingPathFor(out)).size;
    },
  });
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(
    JSON.stringify({
      files: inputs.length,
      read: summary.read,
      records: summary.records,
      seconds: Number(wall.toFixed(2)),
      rowsPerSecond: Math.round(summary.read / wall),
      cpuSeconds: Number(cpuSeconds.toFixed(2)),
      rowsPerCpuSecond: Math.round(summary.read / cpuSeconds),
      // Sorted input is written while it is read: its "read phase" is the whole import but the last step.
      readPhaseSeconds: Number((readDone / 1000).toFixed(2)),
      writePhaseSeconds: Number((wall - readDone / 1000).toFixed(2)),
      // The process's true peak (the kernel's high-water mark: every thread, between samples too).
      // Preparing the inputs on a first run weighs on it: run again with --inputs to measure.
      peakRssMB: Math.round((process.resourceUsage().maxRSS * 1024) / 1e6),
      stagingBytesPerRecord: Math.round(stagingBytes / summary.read),
      inputBytesPerRecord: Math.round(inputs.reduce((sum, f) => sum + statSync(f).size, 0) / summary.read),
    }),
  );
} finally {
  if (keep) for (const f of [out, `${out}.rejects.csv`]) rmSync(f, { force: true });
  else rmSync(dir, { recursive: true, force: true });
}
