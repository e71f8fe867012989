// What the dataset writer (blockEncoder.ts) and its compressing worker (blockWorker.ts) send each other.
// The bytes travel as one transferred buffer a message (moved, not copied, between the threads).

export interface BlockWorkerData {
  /** zstd level of the record blocks (the writer's). */
  level: number;
  /** An Int32 the worker adds one to after every answer, for the writer to wait on (Atomics.wait). */
  answered: SharedArrayBuffer;
}

/**
 * Blocks to compress: `bytes` holds each block's text (its records' texts joined by '\n', as
 * encodeRecordBlock compresses it) in UTF-8, one after the other, `sizes[k]` bytes for block k.
 */
export interface BlockRequest {
  id: number;
  blocks: number[];
  counts: number[];
  sizes: number[];
  bytes: Uint8Array;
}

/** The blocks of a request compressed, in its order: `sizes[k]` bytes of `bytes` and the CRC for block k. */
export type BlockAnswer = { id: number; crcs: number[]; sizes: number[]; bytes: Uint8Array } | { id: number; error: string };
