// Every staged field's vector put in the dataset's final order, encoded as the dataset file stores it
// and written to a scratch file: the work of orderWorker.ts, or of this thread when no worker runs
// (finalOrder.ts). A module of
// its own so that the worker's bundle does not share a chunk with finalOrder.ts, which starts
// workers from where its own code sits (workers/startWorker.ts).
import { ChunkLayout } from '../../dataset/codec/vectorChunks';
import { permuteColumn } from '../../dataset/write/columnOrder';
import { encodeColumn, spillEncodedColumns, type SpilledEncodedColumn } from '../../dataset/write/encodedColumn';
import { loadSpilledColumn, type SpilledColumn } from '../../dataset/write/vectorSpill';
import { VectorScratch } from '../../dataset/write/vectorScratch';
import { ZstdDecompressor } from '../../dataset/codec/zstdContext';

export interface OrderWorkerData {
  /** Each field's parts in arrival order, one a reader (importRun.ts: fieldParts). */
  fields: Array<[number, SpilledColumn[]]>;
  /** The arrival number of the record at each final position (on a SharedArrayBuffer). */
  order: Uint32Array;
  /** Where the vectors in final order go, encoded. */
  outPath: string;
  /** Positions a stored vector chunk holds (the writer's ChunkLayout). */
  chunkSize: number;
  /**
   * Shared memory the starter sets to 1 to stop the work before the next field (finalOrder.ts: a
   * worker is asked, not terminated; workers/stopWorker.ts says why).
   */
  stop?: Int32Array;
}

/** Why orderColumns ended early. */
export const ORDER_STOPPED = 'Putting the vectors in order was stopped.';

export type OrderWorkerMessage = { columns: SpilledEncodedColumn[] } | { error: string };

/**
 * Every field's vector in final order, encoded for the writer's chunks, written to `outPath`. One
 * field at a time: its vectors lie in memory kept for the next field (vectorScratch.ts), which is
 * safe because each is encoded and written before the next field is read.
 */
export function orderColumns({ fields, order, outPath, chunkSize, stop }: OrderWorkerData): SpilledEncodedColumn[] {
  const layout = new ChunkLayout(chunkSize);
  const scratch = new VectorScratch();
  const decompressor = new ZstdDecompressor();
  const encoded = (function* () {
    for (const [, parts] of fields) {
      if (stop && Atomics.load(stop, 0) !== 0) throw new Error(ORDER_STOPPED);
      const loaded = parts.map((part, k) =>
        loadSpilledColumn(part, { vector: (kind, length) => scratch.allocate(`part${k}`, kind, length), decompressor }),
      );
      yield encodeColumn(permuteColumn(loaded, order, undefined, scratch.allocate), layout);
    }
  })();
  try {
    return spillEncodedColumns(encoded, outPath);
  } finally {
    decompressor.close();
  }
}
