// Every staged field's vector put in the dataset's (STATE, PID) order and written to a spill file:
// the work of orderWorker.ts, or of this thread when no worker runs (finalOrder.ts). A module of
// its own so that the worker's bundle does not share a chunk with finalOrder.ts, which starts
// workers from where its own code sits (workers/startWorker.ts).
import { permuteColumn } from '../../dataset/write/columnOrder';
import { loadSpilledColumn, VectorSpill, type SpilledColumn } from '../../dataset/write/vectorSpill';

export interface OrderWorkerData {
  /** Each field's parts in arrival order, one a reader (importRun.ts: fieldParts). */
  fields: Array<[number, SpilledColumn[]]>;
  /** The arrival number of the record at each final position (on a SharedArrayBuffer). */
  order: Uint32Array;
  /** Where the vectors in final order go. */
  outPath: string;
}

export type OrderWorkerMessage = { columns: SpilledColumn[] } | { error: string };

/** Every field's vector in final order, written to `outPath` (a whole vector a chunk). */
export function orderColumns({ fields, order, outPath }: OrderWorkerData): SpilledColumn[] {
  const spill = new VectorSpill(outPath);
  try {
    return fields.map(([, parts]) => {
      const { data, ...column } = permuteColumn(parts.map(loadSpilledColumn), order);
      return { ...column, path: outPath, length: data.length, chunks: [spill.write(data, column.kind, false)], hashOf: null };
    });
  } finally {
    spill.close();
  }
}
