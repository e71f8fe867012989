// Staged vectors put in final order and encoded on a worker thread while the records are written
// (order/finalOrder.ts): the same stored columns the writer would build and encode from the final
// records in order, the same on this thread when no worker can start, and nothing left running after stop().
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ColumnSet } from '../../src/core/dataset/write/columnSet';
import type { RecordValues } from '../../src/core/dataset/codec/recordFormat';
import { VectorSpill, type SpilledColumn } from '../../src/core/dataset/write/vectorSpill';
import { ChunkLayout } from '../../src/core/dataset/codec/vectorChunks';
import { encodeColumn, loadEncodedColumns, type EncodedColumn } from '../../src/core/dataset/write/encodedColumn';
import { generateRecords } from '../../src/core/generate';
import { overrideSettings } from '../../src/core/config';
import { startFinalOrder } from '../../src/core/import/order/finalOrder';
import type { OrderWorkerData } from '../../src/core/import/order/orderColumns';
import { tempDir } from './helpers';

const dir = tempDir('audience-desk-final-order-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// 1,500 records arriving in a shuffled order, read by two readers (arrivals 0-899 and 900-1499).
const final = [...generateRecords(1500, 12)] as RecordValues[];
const order = new Uint32Array(new SharedArrayBuffer(final.length * 4));
let x = 5;
const positions = Array.from(final.keys());
for (let i = positions.length - 1; i > 0; i--) {
  x = (x * 1103515245 + 12345) % 2147483648;
  const j = (x >>> 8) % (i + 1);
  [positions[i], positions[j]] = [positions[j]!, positions[i]!];
}
// positions[a]: the final position of arrival a; order[p]: the arrival at final position p.
positions.forEach((p, arrival) => (order[p] = arrival));
const arrivals = positions.map((p) => final[p]!);

function readerParts(from: number, to: number, name: string): SpilledColumn[] {
  const set = new ColumnSet(undefined, new VectorSpill(join(dir, name), 256));
  for (const r of arrivals.slice(from, to)) set.push(r);
  return set.spilled();
}

const parts = [readerParts(0, 900, 'r0'), readerParts(900, 1500, 'r1')];
// Chunks of 256 positions: each vector is stored in several.
const CHUNK = 256;
const data = (outPath: string): OrderWorkerData => ({
  fields: parts[0]!.map((c, k) => [c.field, [c, parts[1]![k]!]]),
  order,
  outPath,
  chunkSize: CHUNK,
});

/** Encoded columns as plain values, their chunks read out (each is good only until the next). */
const stored = (columns: Iterable<EncodedColumn>) =>
  Array.from(columns, ({ chunks, ...column }) => ({
    ...column,
    chunks: Array.from(chunks, (c) => [Buffer.from(c.data).toString('hex'), c.crc]),
  }));

describe('startFinalOrder', () => {
  it('gives, on a worker and on this thread, the columns of the final records built in order', async () => {
    const reference = new ColumnSet();
    for (const r of final) reference.push(r);
    const expected = stored(reference.finish().map((c) => encodeColumn(c, new ChunkLayout(CHUNK))));
    expect(expected[0]!.chunks.length).toBe(Math.ceil(final.length / CHUNK));
    const onWorker = stored(loadEncodedColumns(await startFinalOrder(data(join(dir, 'worker'))).columns));
    const restore = overrideSettings({ importWorkers: false });
    let here;
    try {
      here = stored(loadEncodedColumns(await startFinalOrder(data(join(dir, 'here'))).columns));
    } finally {
      restore();
    }
    expect(onWorker).toEqual(expected);
    expect(here).toEqual(expected);
  });

  it('once stopped, is not finished on this thread: it says it was stopped', async () => {
    const job = startFinalOrder(data(join(dir, 'stopped')));
    await job.stop();
    await expect(job.columns).rejects.toThrow(/stopped/);
  });
});
