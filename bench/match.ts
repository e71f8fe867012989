// Match and append at scale (docs/match.md, "Speed"): a customer file of ROWS rows (default 100,000)
// built from people spread over every state of FILE, a third each by PID, by name with address
// (lower-case, ZIP+4) and by name with formatted phone, matched with three fields appended. Prints the
// rows a second of the whole run (reading, matching, writing) and the process's peak resident memory
// before and after, so a flat memory shows. Also times a count with consumer opt-outs of N people
// beside the same count with an `exclude` of a list of the same people (docs/optouts.md), then the
// match again with those opt-outs in force.
// Usage: npx tsx bench/match.ts FILE [--rows N] [--match-only]
// (--match-only: the match alone, without the opt-out counts and the second match)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCore } from '../src/core/createCore';
import { Dataset } from '../src/core/dataset/read/dataset';
import { csvField } from '../src/core/dataset/codec/recordFormat';
import { fieldIndex } from '../src/shared/fields';
import { normalizeAudience } from '../src/shared/audienceRequest';

const { values, positionals } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, 'match-only': { type: 'boolean', default: false } },
  allowPositionals: true,
});
const path = positionals[0];
if (!path) throw new Error('usage: npx tsx bench/match.ts FILE [--rows N] [--match-only]');
const wanted = Number(values.rows);

const NAMES = ['PID', 'FNAME', 'LNAME', 'ADDRESS', 'ZIP', 'PHONE'] as const;
const indexes = NAMES.map(fieldIndex);
const ascending = [...indexes].sort((a, b) => a - b);
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/**
 * Writes the customer file of people spread evenly over the file's positions, every state included.
 * Returns only the opt-out rows of every tenth person, so the people read here are garbage before the
 * match and the memory measured is the match's.
 */
function writeCustomerFile(csv: string): { rows: number; optOutRows: string[] } {
  const dataset = Dataset.open(path!);
  const ranges = dataset.stateCounts();
  const total = ranges.reduce((n, r) => n + r.count, 0);
  const count = Math.min(wanted, total);
  // Positions run over the states' ranges in order: map each k-th of the total into them.
  const positions = Array.from({ length: count }, (_, k) => {
    let at = Math.floor((k * total) / count);
    for (const r of ranges) {
      if (at < r.count) return r.first + at;
      at -= r.count;
    }
    return ranges[0]!.first;
  });
  const lines = ['Customer,First Name,Last Name,Address,ZIP,Phone,PID'];
  const optOutRows: string[] = [];
  let k = 0;
  for (let from = 0; from < positions.length; from += 4096)
    for (const r of dataset.valuesOf(positions.slice(from, from + 4096), ascending)) {
      const [pid, first, last, address, zip, phone] = indexes.map((i) => r[ascending.indexOf(i)]!);
      const cells = [`C${k}`, String(first).toLowerCase(), String(last), '', '', '', ''];
      if (k % 3 === 0) cells[6] = String(pid).toLowerCase();
      else if (k % 3 === 1 || phone === '') [cells[3], cells[4]] = [String(address).toLowerCase(), `${String(zip)}-0001`];
      else cells[5] = `(${String(phone).slice(0, 3)}) ${String(phone).slice(3, 6)}-${String(phone).slice(6)}`;
      lines.push(cells.map(csvField).join(','));
      if (k % 10 === 0) optOutRows.push(`${String(pid)},${String(phone)}`);
      k++;
    }
  dataset.close();
  writeFileSync(csv, lines.join('\n') + '\n');
  return { rows: k, optOutRows };
}

const home = mkdtempSync(join(tmpdir(), 'audience-desk-match-bench-'));
try {
  const csv = join(home, 'customers.csv');
  const { optOutRows } = writeCustomerFile(csv);
  const core = createCore({ homeDir: home, datasetPath: path });
  const before = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const summary = await core.match.match({ file: csv, out: join(home, 'matched.csv'), fields: ['GENDER', 'AGE', 'CITY'] });
  const seconds = (performance.now() - started) / 1000;
  const after = process.resourceUsage().maxRSS * 1024;
  // CPU seconds of every thread: on a shared machine, what the run would take with its cores to itself.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(
    `${path}: ${summary.rows} rows matched in ${seconds.toFixed(2)} s: ${Math.round(summary.rows / seconds)} rows/s; ` +
      `${summary.matched} matched (${JSON.stringify(summary.byMethod)}), ${summary.ambiguous} ambiguous; ` +
      `memory ${mb(before)} before, peak ${mb(after)}; ${cpuSeconds.toFixed(2)} CPU-s (${Math.round(summary.rows / cpuSeconds)} rows a CPU-second), ` +
      `load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  await core.shutdown();
  if (!values['match-only']) await matchWithOptOuts(csv, optOutRows);
} finally {
  rmSync(home, { recursive: true, force: true });
}

/** The match again with opt-outs of a tenth of the bench people in force (after timing counts with them). */
async function matchWithOptOuts(csv: string, optOutRows: string[]): Promise<void> {
  const optHome = await optOutCost(optOutRows);
  // The same match with those opt-outs in force: the people about to be matched are read and asked (docs/match.md).
  const withOptOuts = createCore({ homeDir: optHome, datasetPath: path });
  const t = performance.now();
  const again = await withOptOuts.match.match({ file: csv, out: join(home, 'matched-optouts.csv'), fields: ['GENDER', 'AGE', 'CITY'] });
  const s = (performance.now() - t) / 1000;
  // No memory figure: the process's peak by now is the earlier cores'.
  console.log(
    `with opt-outs of ${optOutRows.length} people in force: ${again.rows} rows in ${s.toFixed(2)} s: ` +
      `${Math.round(again.rows / s)} rows/s; ${again.matched} matched`,
  );
  await withOptOuts.shutdown();
}

/**
 * A count of the biggest state with opt-outs of every tenth bench person (PID and phone) in force,
 * beside the same count with an `exclude` of a suppression list of the same file, each on a fresh core
 * (the first use, when the people are found), then again (kept).
 */
async function optOutCost(rows: string[]): Promise<string> {
  const file = join(home, 'optouts.csv');
  writeFileSync(file, ['PID,PHONE', ...rows].join('\n') + '\n');
  const time = async (ask: () => Promise<unknown>): Promise<string> => {
    const t = performance.now();
    await ask();
    return `${(performance.now() - t).toFixed(0)} ms`;
  };
  const optHome = join(home, 'optouts-home');
  const first = createCore({ homeDir: optHome, datasetPath: path });
  const state = (await first.engine.summary()).states.reduce((a, b) => (b.count > a.count ? b : a)).state;
  await first.optOuts.import(file);
  await first.shutdown();
  const withOptOuts = createCore({ homeDir: optHome, datasetPath: path });
  const plain = normalizeAudience({ state, filters: [] });
  const o1 = await time(() => withOptOuts.audiences.count(plain));
  const o2 = await time(() => withOptOuts.audiences.count(plain));
  await withOptOuts.shutdown();
  const listHome = join(home, 'list-home');
  const lister = createCore({ homeDir: listHome, datasetPath: path });
  const list = await lister.lists.import(file, 'same people');
  await lister.shutdown();
  const withList = createCore({ homeDir: listHome, datasetPath: path });
  const excluding = normalizeAudience({ state, filters: [], exclude: [`list:${list.id}`] });
  const l1 = await time(() => withList.audiences.count(excluding));
  const l2 = await time(() => withList.audiences.count(excluding));
  await withList.shutdown();
  console.log(
    `count of ${state} with opt-outs of ${rows.length} people: ${o1} first, ${o2} kept; with an exclude of a list of the same file: ${l1} first, ${l2} kept`,
  );
  return optHome;
}
