// Match and append at scale (docs/match.md, "Speed"): a customer file of ROWS rows (default 100,000)
// built from people spread over every state of FILE, a third each by PID, by name with address
// (lower-case, ZIP+4) and by name with formatted phone, matched with three fields appended. Prints the
// rows a second of the whole run (reading, matching, writing) and the process's peak resident memory
// before and after, so a flat memory shows. Also times a count with consumer opt-outs of N people
// beside the same count with an `exclude` of a list of the same people (docs/optouts.md), then the
// match again with those opt-outs in force.
// Usage: npx tsx bench/match.ts FILE [--rows N]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCore } from '../src/core/createCore';
import { Dataset } from '../src/core/dataset/read/dataset';
import { csvField } from '../src/core/dataset/codec/recordFormat';
import { fieldIndex } from '../src/shared/fields';
import { normalizeAudience } from '../src/shared/audienceRequest';

const { values, positionals } = parseArgs({ options: { rows: { type: 'string', default: '100000' } }, allowPositionals: true });
const path = positionals[0];
if (!path) throw new Error('usage: npx tsx bench/match.ts FILE [--rows N]');
const wanted = Number(values.rows);

const NAMES = ['PID', 'FNAME', 'LNAME', 'ADDRESS', 'ZIP', 'PHONE'] as const;
const indexes = NAMES.map(fieldIndex);
const ascending = [...indexes].sort((a, b) => a - b);
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

// People spread evenly over the file's positions, every state included.
const dataset = Dataset.open(path);
const total = dataset.stateCounts().reduce((n, r) => n + r.count, 0);
const firsts = dataset.stateCounts().map((r) => r.first);
const spread = Array.from({ length: Math.min(wanted, total) }, (_, k) => Math.floor((k * total) / Math.min(wanted, total)));
// Positions run over the states' ranges in order: map each k-th of the total into them.
const ranges = dataset.stateCounts();
const positions = spread.map((k) => {
  let at = k;
  for (const r of ranges) {
    if (at < r.count) return r.first + at;
    at -= r.count;
  }
  return firsts[0]!;
});
const records: Array<Array<string | number>> = [];
for (let from = 0; from < positions.length; from += 4096)
  for (const r of dataset.valuesOf(positions.slice(from, from + 4096), ascending))
    records.push(indexes.map((i) => r[ascending.indexOf(i)]!));
dataset.close();

const home = mkdtempSync(join(tmpdir(), 'audience-desk-match-bench-'));
try {
  const csv = join(home, 'customers.csv');
  const lines = ['Customer,First Name,Last Name,Address,ZIP,Phone,PID'];
  records.forEach(([pid, first, last, address, zip, phone], k) => {
    const cells = [`C${k}`, String(first).toLowerCase(), String(last), '', '', '', ''];
    if (k % 3 === 0) cells[6] = String(pid).toLowerCase();
    else if (k % 3 === 1 || phone === '') [cells[3], cells[4]] = [String(address).toLowerCase(), `${String(zip)}-0001`];
    else cells[5] = `(${String(phone).slice(0, 3)}) ${String(phone).slice(3, 6)}-${String(phone).slice(6)}`;
    lines.push(cells.map(csvField).join(','));
  });
  writeFileSync(csv, lines.join('\n') + '\n');
  const core = createCore({ homeDir: home, datasetPath: path });
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const summary = await core.match.match({ file: csv, out: join(home, 'matched.csv'), fields: ['GENDER', 'AGE', 'CITY'] });
  const seconds = (performance.now() - started) / 1000;
  const after = process.resourceUsage().maxRSS * 1024;
  console.log(
    `${path}: ${summary.rows} rows matched in ${seconds.toFixed(2)} s: ${Math.round(summary.rows / seconds)} rows/s; ` +
      `${summary.matched} matched (${JSON.stringify(summary.byMethod)}), ${summary.ambiguous} ambiguous; ` +
      `memory ${mb(before)} before, peak ${mb(after)}`,
  );
  await core.shutdown();
  const optHome = await optOutCost(records);
  // The same match with those opt-outs in force: the people about to be matched are read and asked (docs/match.md).
  const withOptOuts = createCore({ homeDir: optHome, datasetPath: path });
  const t = performance.now();
  const again = await withOptOuts.match.match({ file: csv, out: join(home, 'matched-optouts.csv'), fields: ['GENDER', 'AGE', 'CITY'] });
  const s = (performance.now() - t) / 1000;
  // No memory figure: the process's peak by now is the earlier cores'.
  console.log(
    `with opt-outs of ${Math.ceil(records.length / 10)} people in force: ${again.rows} rows in ${s.toFixed(2)} s: ` +
      `${Math.round(again.rows / s)} rows/s; ${again.matched} matched`,
  );
  await withOptOuts.shutdown();
} finally {
  rmSync(home, { recursive: true, force: true });
}

/**
 * A count of the biggest state with opt-outs of every tenth bench person (PID and phone) in force,
 * beside the same count with an `exclude` of a suppression list of the same file, each on a fresh core
 * (the first use, when the people are found), then again (kept).
 */
async function optOutCost(people: Array<Array<string | number>>): Promise<string> {
  const file = join(home, 'optouts.csv');
  const rows = people.filter((_, k) => k % 10 === 0).map(([pid, , , , , phone]) => `${String(pid)},${String(phone)}`);
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
