// What the dataset writer (blockEncoder.ts) and its compressing worker (blockWorker.ts) send each other.
// The texts lie in a shared buffer the writer reuses once a message is answered; the compressed
// bytes come back as one transferred buffer (moved, not copied, between the threads).

export interface BlockWorkerData {
  /** zstd level of the record blocks (the writer's). */
  level: number;
  /** An Int32 the worker adds one to after every answer, for the writer to wait on (Atomics.wait). */
  answered: SharedArrayBuffer;
}

/**
 * Blocks to compress: `texts` holds each block's text (its records' texts joined by '\n', as
 * encodeRecordBlock compresses it) in UTF-8, one after the other from its start, `sizes[k]` bytes
 * for block k. The writer leaves them alone until the answer comes.
 */
export interface BlockRequest {
  id: number;
  blocks: number[];
  counts: number[];
  sizes: number[];
  texts: SharedArrayBuffer;
}

/** The blocks of a request compressed, in its order: `sizes[k]` bytes of `bytes` and the CRC for block k. */
export type BlockAnswer = { id: number; crcs: number[]; sizes: number[]; bytes: Uint8Array } | { id: number; error: string };
