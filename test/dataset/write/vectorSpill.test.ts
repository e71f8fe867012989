// Vectors kept on disk while they are built (vectorSpill.ts): whatever happened between chunks (a
// dictionary passing its limit, an integer field widening from bytes to floats), the columns read
// back must be exactly the ones the same ColumnSet finishes in memory; and the writer's spill file
// never outlives the writer.
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ColumnSet } from '../../../src/core/dataset/write/columnSet';
import { stringHash } from '../../../src/core/dataset/codec/columnVector';
import { DatasetWriter } from '../../../src/core/dataset/write/datasetWriter';
import type { RecordValues } from '../../../src/core/dataset/codec/recordFormat';
import { loadSpilledColumn, loadSpilledColumns, VectorSpill } from '../../../src/core/dataset/write/vectorSpill';
import { VectorScratch } from '../../../src/core/dataset/write/vectorScratch';
import { ZstdDecompressor } from '../../../src/core/dataset/codec/zstdContext';
import { generateRecords } from '../../../src/core/generate';
import { FIELDS, fieldIndex } from '../../../src/shared/fields';

const dir = mkdtempSync(join(tmpdir(), 'audience-desk-spill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 256;
let spills = 0;

/** The same records through a ColumnSet in memory and one with a spill of CHUNK-row chunks. */
function bothWays(records: readonly RecordValues[], limit: number) {
  const inMemory = new ColumnSet(limit);
  const spill = new VectorSpill(join(dir, `spill-${spills++}`), CHUNK);
  const spilling = new ColumnSet(limit, spill);
  for (const r of records) {
    inMemory.push(r);
    spilling.push(r);
  }
  const spilled = spilling.spilled();
  return { expected: inMemory.finish(), spilled, loaded: [...loadSpilledColumns(spilled)] };
}

describe('spilled vectors', () => {
  it('read back equal to the columns built in memory, across a dictionary that turns into hashes', () => {
    // A limit low enough that many string fields pass it after some chunks were written as codes.
    const records = [...generateRecords(3000, 8)] as RecordValues[];
    const { expected, spilled, loaded } = bothWays(records, 300);
    expect(loaded).toEqual(expected);
    expect(spilled.every((c) => c.chunks.length === Math.ceil(records.length / CHUNK))).toBe(true);
    // The hard case happened: codes on disk, the field in hashes at the end.
    const turned = spilled.filter((c) => c.encoding === 'hash' && c.chunks.some((k) => k.codes));
    expect(turned.length).toBeGreaterThan(0);
    expect(turned.every((c) => c.hashOf !== null)).toBe(true);
  });

  it('read back the same into memory kept from one column to the next, with one kept decompressor', () => {
    const records = [...generateRecords(1200, 12)] as RecordValues[];
    const { expected, spilled } = bothWays(records, 300);
    const scratch = new VectorScratch();
    const decompressor = new ZstdDecompressor();
    // Wide columns before narrow ones and back: the kept memory holds another field's values each time.
    for (const column of [...spilled, ...spilled.slice().reverse()]) {
      const kept = loadSpilledColumn(column, { vector: (kind, length) => scratch.allocate('part', kind, length), decompressor });
      expect(kept).toEqual(expected.find((e) => e.field === column.field));
    }
    decompressor.close();
    // A vector of another kind or length is refused, not read into.
    const first = spilled[0]!;
    expect(() => loadSpilledColumn(first, { vector: () => new Float64Array(first.length + 1) })).toThrow(/another shape/);
  });

  it('keeps the width of spilled codes turned into hashes when the rows after them hash narrow', () => {
    // CITY: three values for the first chunk (written as codes), then, past the limit of 3, only
    // values whose hash fits 16 bits: the column must still be as wide as the first values' hashes.
    const narrow: string[] = [];
    for (let i = 0; narrow.length < 4; i++) if (stringHash(`N${i}`) <= 0xffff) narrow.push(`N${i}`);
    const city = fieldIndex('CITY');
    const records = ([...generateRecords(2 * CHUNK, 6)] as RecordValues[]).map((r, i) => {
      const copy = r.slice();
      copy[city] = i < CHUNK ? ['ALPHA', 'BRAVO', 'CHARLIE'][i % 3]! : narrow[i % 4]!;
      return copy;
    });
    const { expected, loaded } = bothWays(records, 3);
    const column = loaded.find((c) => c.field === city)!;
    expect(column).toEqual(expected.find((c) => c.field === city));
    expect([column.encoding, column.kind]).toEqual(['hash', 'u32']);
  });

  it('widens earlier chunks to the final kind of an integer field', () => {
    const age = fieldIndex('AGE');
    const income = FIELDS.findIndex((f, i) => f.type === 'integer' && i !== age);
    const records = ([...generateRecords(1200, 9)] as RecordValues[]).map((r, i) => {
      const copy = r.slice();
      // AGE: bytes, then 16 bits, then negative, then a fraction; the other: bytes, then 16 bits.
      copy[age] = i < 300 ? i % 100 : i < 600 ? 70_000 + i : i < 900 ? -i : i + 0.5;
      copy[income] = i < 700 ? i % 200 : 1000 + i;
      return copy;
    });
    const { expected, spilled, loaded } = bothWays(records, 1 << 18);
    expect(loaded).toEqual(expected);
    const kinds = (field: number) => [...new Set(spilled.find((c) => c.field === field)!.chunks.map((k) => k.kind))];
    expect(kinds(age)).toEqual(['u8', 'u32', 'i32', 'f64']);
    expect(kinds(income)).toEqual(['u8', 'u16']);
    expect(loaded.find((c) => c.field === age)!.kind).toBe('f64');
  });

  it('of no records read back as empty columns', () => {
    const { expected, loaded } = bothWays([], 10);
    expect(loaded).toEqual(expected);
  });

  it('holds its values compressed, reads a vector of several frames back exactly, and refuses a changed byte', () => {
    const path = join(dir, `spill-${spills++}`);
    const spill = new VectorSpill(path, CHUNK);
    // 10 MB of 32-bit codes (three frames of 4 MB), repetitive as a household-ordered field's are.
    const values = Uint32Array.from({ length: 2_500_000 }, (_, i) => Math.floor(i / 7) % 1000);
    const chunk = spill.write(values, 'u32', false);
    spill.close();
    expect(chunk.frames).toHaveLength(3);
    expect(statSync(path).size).toBeLessThan(values.byteLength / 10);
    const column = {
      field: 0,
      encoding: 'value' as const,
      kind: 'u32' as const,
      dict: null,
      path,
      length: values.length,
      chunks: [chunk],
      hashOf: null,
    };
    expect(Buffer.from(loadSpilledColumn(column).data.buffer).equals(Buffer.from(values.buffer))).toBe(true);
    // One byte in the middle of the second frame, changed.
    const at = chunk.at + chunk.frames[0]! + (chunk.frames[1]! >> 1);
    const fd = openSync(path, 'r+');
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, at);
    byte[0]! ^= 0x08;
    writeSync(fd, byte, 0, 1, at);
    closeSync(fd);
    expect(() => loadSpilledColumn(column)).toThrow(/does not read back as it was written/);
  });

  it('cut short or gone, fails loudly rather than giving a short vector', () => {
    const records = [...generateRecords(600, 3)] as RecordValues[];
    const { spilled } = bothWays(records, 1 << 18);
    const path = spilled[0]!.path;
    truncateSync(path, statSync(path).size - 1);
    expect(() => [...loadSpilledColumns(spilled)]).toThrow(/ends early/);
    rmSync(path);
    expect(() => [...loadSpilledColumns(spilled)]).toThrow(/ENOENT/);
  });
});

describe('DatasetWriter spill', () => {
  const leftovers = (target: string) => readdirSync(dir).filter((n) => n.startsWith(`${target}.`));

  it('is removed when the dataset is published, and when it is abandoned', () => {
    const records = [...generateRecords(700, 5)] as RecordValues[];
    records.sort((a, b) =>
      `${a[fieldIndex('STATE')]}${a[fieldIndex('PID')]}` < `${b[fieldIndex('STATE')]}${b[fieldIndex('PID')]}` ? -1 : 1,
    );
    const done = new DatasetWriter(join(dir, 'done.sqlite'));
    for (const r of records) done.append(r);
    expect(existsSync(`${done.tempPath}-vectors`)).toBe(true);
    done.finish();
    expect(leftovers('done.sqlite')).toEqual([]);
    const dropped = new DatasetWriter(join(dir, 'dropped.sqlite'));
    for (const r of records) dropped.append(r);
    dropped.abort();
    expect(leftovers('dropped.sqlite')).toEqual([]);
    expect(existsSync(join(dir, 'dropped.sqlite'))).toBe(false);
  });
});
