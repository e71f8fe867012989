// `npx tsx bench/codedBlocks.ts FILE [--records N]`: how small the record blocks would be if each
// group of consecutive fields were stored as a code into a dictionary of that group's texts
// (order of first appearance, capped; a text past the cap written out), against the JSON texts the
// format stores now. Blocks of 32 records at zstd level 3, as the format's. The experiment behind
// docs/dataset-format.md, "Size" (coded records): it measures size only; the prototype's costs
// (rebuilding a record's text, the writer's lookups) are recorded there.
import { parseArgs } from 'node:util';
import { constants, zstdCompressSync } from 'node:zlib';
import { RECORD_LEVEL, RECORDS_PER_BLOCK } from '../src/core/dataset/codec/blockCodec';
import { Dataset } from '../src/core/dataset/read/dataset';
import { FIELDS } from '../src/shared/fields';

const { values, positionals } = parseArgs({ options: { records: { type: 'string', default: '100000' } }, allowPositionals: true });
const path = positionals[0];
if (!path) throw new Error('usage: npx tsx bench/codedBlocks.ts FILE [--records N]');

const dataset = Dataset.open(path);
const n = Math.min(Number(values.records), dataset.records);
const records: string[][] = [];
for (let from = 0; from < n; from += 4096) {
  const positions = Array.from({ length: Math.min(4096, n - from) }, (_, k) => from + k);
  for (const row of dataset.fullRows(positions)) records.push(row.map((v) => JSON.stringify(v)));
}
dataset.close();

const zstd = (bytes: Uint8Array, level: number) =>
  zstdCompressSync(bytes, { params: { [constants.ZSTD_c_compressionLevel]: level } }).length;

/** Bytes a record of blocks of the texts themselves (what the format stores). */
function textBlocks(): number {
  let total = 0;
  for (let i = 0; i < n; i += RECORDS_PER_BLOCK) {
    const texts = records.slice(i, i + RECORDS_PER_BLOCK).map((r) => `[${r.join(',')}]`);
    total += zstd(Buffer.from(texts.join('\n')), RECORD_LEVEL);
  }
  return total / n;
}

/** Bytes a record of coded blocks, and of the dictionaries (as text, and compressed at level 9). */
function codedBlocks(group: number, cap: number): { blocks: number; dictionaries: number; compressed: number } {
  const groups = Math.ceil(FIELDS.length / group);
  const dicts = Array.from({ length: groups }, () => new Map<string, number>());
  let total = 0;
  for (let i = 0; i < n; i += RECORDS_PER_BLOCK) {
    const out: number[] = [];
    for (const r of records.slice(i, i + RECORDS_PER_BLOCK))
      for (let g = 0; g < groups; g++) {
        const text = r.slice(g * group, (g + 1) * group).join(',');
        const dict = dicts[g]!;
        let code = dict.get(text);
        if (code === undefined && dict.size < cap) dict.set(text, (code = dict.size));
        if (code === undefined) out.push(0xff, ...Buffer.from(`${text}\n`));
        else if (code < 0x80) out.push(code);
        else out.push(0x80 | (code >> 8), code & 0xff);
      }
    total += zstd(Buffer.from(out), RECORD_LEVEL);
  }
  const texts = dicts.map((d) => Buffer.from([...d.keys()].join('\n')));
  return {
    blocks: total / n,
    dictionaries: texts.reduce((a, t) => a + t.length, 0) / n,
    compressed: texts.reduce((a, t) => a + zstd(t, 9), 0) / n,
  };
}

console.log(`${path}: the first ${n} records; bytes a record`);
console.log(`| blocks | records | dictionaries (text / zstd 9) |\n|---|---|---|`);
console.log(`| JSON texts (the format's) | ${textBlocks().toFixed(0)} | none |`);
for (const group of [1, 4, 8])
  for (const cap of [4096, 0x7eff]) {
    const r = codedBlocks(group, cap);
    console.log(
      `| groups of ${group} field${group > 1 ? 's' : ''}, ${cap} texts a group | ${r.blocks.toFixed(0)} | ${r.dictionaries.toFixed(0)} / ${r.compressed.toFixed(0)} |`,
    );
  }
