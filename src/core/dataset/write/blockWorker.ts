// Worker-thread entry that compresses record blocks for the dataset writer (blockEncoder.ts), so the
// thread that writes the file shares the write with a second core. Takes BlockRequests on
// workerData.port and answers each with a BlockAnswer, in order, then counts the answer in
// workerData.answered and wakes the writer waiting on it.
import { workerData, type MessagePort } from 'node:worker_threads';
import { recordBlockCrc } from '../codec/blockCodec';
import { frameBound, ZstdCompressor } from '../codec/zstdContext';
import type { BlockAnswer, BlockRequest, BlockWorkerData } from './blockMessages';

const { port, level, answered } = workerData as BlockWorkerData & { port: MessagePort };
const counter = new Int32Array(answered);
const compressor = new ZstdCompressor(level);
/**
 * Where a request's frames are compressed, one after the other, before the answer's bytes are cut
 * to their size: kept from one request to the next. A buffer a frame, then a copy of it to its
 * size and another into the answer, cost ~0.3 s of this thread's ~2 s in an import of 200,000 rows.
 */
let scratch = Buffer.allocUnsafeSlow(0);

function compressed(request: BlockRequest): BlockAnswer {
  const texts = new Uint8Array(request.texts);
  const inputs: Uint8Array[] = [];
  let at = 0;
  for (const size of request.sizes) {
    inputs.push(texts.subarray(at, at + size));
    at += size;
  }
  const room = inputs.reduce((n, input) => n + frameBound(input), 0);
  if (scratch.byteLength < room) scratch = Buffer.allocUnsafeSlow(room);
  // As encodeRecordBlock (blockCodec.ts) compresses a block on the writer's thread: the same bytes.
  const sizes: number[] = [];
  let to = 0;
  for (const input of inputs) {
    const size = compressor.compressInto(input, scratch.subarray(to, to + frameBound(input)));
    sizes.push(size);
    to += size;
  }
  const bytes = Buffer.allocUnsafeSlow(to); // its own memory, to transfer
  scratch.copy(bytes, 0, 0, to);
  let from = 0;
  const crcs = sizes.map((size, k) => {
    const frame = bytes.subarray(from, from + size);
    from += size;
    return recordBlockCrc(request.blocks[k]!, request.counts[k]!, frame);
  });
  return { id: request.id, crcs, sizes, bytes };
}

port.on('message', (request: BlockRequest) => {
  let answer: BlockAnswer;
  try {
    answer = compressed(request);
  } catch (e) {
    answer = { id: request.id, error: (e as Error).message };
  }
  port.postMessage(answer, 'bytes' in answer ? [answer.bytes.buffer as ArrayBuffer] : []);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
});
