// The first use of a suppression list against a dataset file, as a user meets it: importing a list
// of 1,000 people of California (their PID, phone, address and ZIP, as the dataset holds them) counts
// `matched` over every state. With list keys (dataset/format/listKeys.ts) a list reads only the records its
// keys point to; `--reference` also times the matcher reading every record (how lists matched before,
// and still do on a file without list keys), in the same process on the same file, and prints the
// ratio. Figures behind docs/list-controls.md, "At scale".
// Usage: npx tsx bench/listMatching.ts FILE [--reference]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCore } from '../src/core/createCore';
import { Dataset } from '../src/core/dataset/read/dataset';
import { uint32Set } from '../src/core/collections/uint32Table';
import { EmbeddedEngine } from '../src/core/query/embeddedEngine';
import { matchedMarks } from '../src/core/query/matchedPeople';
import { csvField } from '../src/core/dataset/codec/recordFormat';
import { fieldIndex } from '../src/shared/fields';

const { values, positionals } = parseArgs({ options: { reference: { type: 'boolean', default: false } }, allowPositionals: true });
const path = positionals[0];
if (!path) throw new Error('usage: npx tsx bench/listMatching.ts FILE [--reference]');

const NAMES = ['PID', 'PHONE', 'ADDRESS', 'ZIP'];
const indexes = NAMES.map(fieldIndex);
const ascending = [...indexes].sort((a, b) => a - b);

// 1,000 people spread evenly over California's positions.
const dataset = Dataset.open(path);
const ca = dataset.stateRange('CA');
const positions = Array.from({ length: 1000 }, (_, k) => ca.first + Math.floor((k * ca.count) / 1000));
const rows = dataset.valuesOf(positions, ascending).map((r) => indexes.map((i) => r[ascending.indexOf(i)]!));
dataset.close();

const home = mkdtempSync(join(tmpdir(), 'audience-desk-list-bench-'));
try {
  const csv = join(home, 'list.csv');
  writeFileSync(csv, [NAMES.join(','), ...rows.map((r) => r.map(csvField).join(','))].join('\n') + '\n');
  const core = createCore({ homeDir: home, datasetPath: path });
  const started = performance.now();
  const info = await core.lists.import(csv, 'Bench list');
  const seconds = (performance.now() - started) / 1000;
  console.log(`${path}: import of a 1,000-person list, matched counted over every state: ${seconds.toFixed(2)} s, ${info.matched} people`);
  // The first `exclude` of the list in California: the state's people it names, on a fresh dataset.
  const matcher = core.lists.matcher(info.id)!;
  const fresh = Dataset.open(path);
  const keys = matcher.listKeys!()!;
  const t0 = performance.now();
  const marks = matchedMarks(fresh, matcher, fresh.stateRange('CA'), {
    onlyHashes: () => new Uint32Array(2),
    listKeys: () => uint32Set([...keys.pid, ...keys.phone, ...keys.address]),
  });
  const caMs = performance.now() - t0;
  fresh.close();
  console.log(`first exclude in California (${ca.count} people): ${caMs.toFixed(0)} ms, ${marks.reduce((n, m) => n + m, 0)} people named`);
  if (values.reference) {
    const engine = new EmbeddedEngine(Dataset.open(path), { backgroundVerify: false });
    const t = performance.now();
    const people = engine.countMatching({ key: 'reference', fields: matcher.fields, matches: (v) => matcher.matches(v) });
    const reference = (performance.now() - t) / 1000;
    engine.close();
    console.log(
      `reference, every record read: ${reference.toFixed(1)} s, ${people} people (${people === info.matched ? 'the same' : 'DIFFERENT'}); ` +
        `list keys take ${((seconds / reference) * 100).toFixed(2)}% of its time`,
    );
  }
  await core.shutdown();
} finally {
  rmSync(home, { recursive: true, force: true });
}
