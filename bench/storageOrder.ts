// `npx tsx bench/storageOrder.ts FILE [--records N]`: what the order of the records and the coding
// of the record blocks would do to a file's size, on whole states from the file's first records.
// For each state the records are taken in PID order and again in household order (ZIP, ADDRESS,
// HHID, PID), whatever order the file stores them in, and three parts are measured in bytes a record:
// - record blocks as the format stores them (JSON texts, blocks of 32, zstd level 3);
// - "coded" blocks: the vectors' own codes of the 32 records (one column after another, at each
//   vector's width) and the JSON texts of the fields no code rebuilds (hashed identifiers,
//   LATITUDE, LONGITUDE), zstd level 3: a record rebuilt from its codes costs no dictionary the
//   file does not already hold;
// - the vectors, rebuilt over the records in that order (chunks of 65,536 at zstd level 1).
// The experiment behind docs/dataset-format.md, "Size" (what a smaller file needs); it changes
// nothing in the file.
import { parseArgs } from 'node:util';
import { constants, zstdCompressSync } from 'node:zlib';
import { RECORD_LEVEL, RECORDS_PER_BLOCK } from '../src/core/dataset/codec/blockCodec';
import { ColumnSet } from '../src/core/dataset/write/columnSet';
import type { Vector } from '../src/core/dataset/codec/columnVector';
import { Dataset } from '../src/core/dataset/read/dataset';
import { VECTOR_CHUNK } from '../src/core/dataset/codec/vectorChunks';
import { FIELDS, fieldIndex } from '../src/shared/fields';

type Row = ReadonlyArray<string | number>;

const { values, positionals } = parseArgs({ options: { records: { type: 'string', default: '100000' } }, allowPositionals: true });
const path = positionals[0];
if (!path) throw new Error('usage: npx tsx bench/storageOrder.ts FILE [--records N]');

const zstd = (bytes: Uint8Array, level: number): number =>
  zstdCompressSync(bytes, { params: { [constants.ZSTD_c_compressionLevel]: level } }).length;
const asBytes = (v: Vector): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

const [ZIP, ADDRESS, HHID, PID] = ['ZIP', 'ADDRESS', 'HHID', 'PID'].map(fieldIndex) as [number, number, number, number];

function compare(a: Row, b: Row): number {
  for (const f of [ZIP, ADDRESS, HHID, PID]) {
    const x = a[f]!;
    const y = b[f]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Each filterable field's vector over `rows`, as the writer codes it (ColumnSet: dictionaries in order
 * of first appearance, hashes for identifiers and past the dictionary limit), and whether a code
 * gives the field's value back (a dictionary's string or the integer itself, not a hash).
 */
function vectors(rows: readonly Row[]): { codes: Vector[]; coded: boolean[] } {
  const set = new ColumnSet();
  for (const row of rows) set.push(row);
  const codes: Vector[] = [];
  const coded = FIELDS.map(() => false);
  // The coordinates' vectors are left out: these figures are of the filterable fields' (as before them).
  for (const column of set.finish())
    if (FIELDS[column.field]!.type !== 'number') {
      codes[column.field] = column.data;
      coded[column.field] = column.encoding !== 'hash';
    }
  return { codes, coded };
}

interface Sizes {
  blocks: number;
  coded: number;
  vectors: number;
}

function measure(rows: readonly Row[]): Sizes {
  const { codes: vs, coded } = vectors(rows);
  const sizes: Sizes = { blocks: 0, coded: 0, vectors: 0 };
  for (const v of vs)
    if (v) for (let c = 0; c < v.length; c += VECTOR_CHUNK) sizes.vectors += zstd(asBytes(v.subarray(c, c + VECTOR_CHUNK)), 1);
  for (let b = 0; b < rows.length; b += RECORDS_PER_BLOCK) {
    const block = rows.slice(b, b + RECORDS_PER_BLOCK);
    sizes.blocks += zstd(Buffer.from(block.map((r) => JSON.stringify(r)).join('\n')), RECORD_LEVEL);
    const parts: Buffer[] = [];
    for (let f = 0; f < FIELDS.length; f++) if (coded[f]) parts.push(asBytes(vs[f]!.subarray(b, b + block.length)));
    // The rest as JSON texts; \u0001 never occurs in JSON text, so it can part the fields.
    const rest = block.map((r) =>
      r
        .filter((_, f) => !coded[f])
        .map((v) => JSON.stringify(v))
        .join('\u0001'),
    );
    parts.push(Buffer.from(rest.join('\n')));
    sizes.coded += zstd(Buffer.concat(parts), RECORD_LEVEL);
  }
  return sizes;
}

const dataset = Dataset.open(path);
const wanted = Number(values.records);
const totals = { pid: { blocks: 0, coded: 0, vectors: 0 }, household: { blocks: 0, coded: 0, vectors: 0 } };
let records = 0;
for (const state of dataset.stateCounts().sort((a, b) => a.first - b.first)) {
  if (records >= wanted) break;
  const rows: Row[] = [];
  for (let p = state.first; p < state.first + state.count; p += 4096) {
    const positions = Array.from({ length: Math.min(4096, state.first + state.count - p) }, (_, k) => p + k);
    rows.push(...dataset.fullRows(positions));
  }
  records += rows.length;
  for (const [order, inOrder] of [
    ['pid', [...rows].sort((a, b) => (a[PID]! < b[PID]! ? -1 : a[PID]! > b[PID]! ? 1 : 0))],
    ['household', [...rows].sort(compare)],
  ] as const) {
    const s = measure(inOrder);
    const t = totals[order];
    t.blocks += s.blocks;
    t.coded += s.coded;
    t.vectors += s.vectors;
  }
}
dataset.close();

const per = (n: number): string => (n / records).toFixed(0);
console.log(`${path}: ${records} records (whole states); bytes a record`);
console.log('| order | record blocks (JSON) | record blocks (coded) | vectors |\n|---|---|---|---|');
for (const [order, t] of Object.entries(totals)) console.log(`| ${order} | ${per(t.blocks)} | ${per(t.coded)} | ${per(t.vectors)} |`);
