// Worker-thread entry that compresses record blocks for the dataset writer (blockEncoder.ts), so the
// thread that writes the file shares the write with a second core. Takes BlockRequests on
// workerData.port and answers each with a BlockAnswer, in order, then counts the answer in
// workerData.answered and wakes the writer waiting on it.
import { workerData, type MessagePort } from 'node:worker_threads';
import { recordBlockCrc } from '../codec/blockCodec';
import { ZstdCompressor } from '../codec/zstdContext';
import type { BlockAnswer, BlockRequest, BlockWorkerData } from './blockMessages';

const { port, level, answered } = workerData as BlockWorkerData & { port: MessagePort };
const counter = new Int32Array(answered);
const compressor = new ZstdCompressor(level);

function compressed(request: BlockRequest): BlockAnswer {
  const frames: Buffer[] = [];
  const texts = new Uint8Array(request.texts);
  let at = 0;
  request.sizes.forEach((size) => {
    // As encodeRecordBlock (blockCodec.ts) compresses a block on the writer's thread: the same bytes.
    frames.push(compressor.compress(texts.subarray(at, at + size)));
    at += size;
  });
  const bytes = Buffer.allocUnsafeSlow(frames.reduce((n, f) => n + f.byteLength, 0)); // its own memory, to transfer
  let to = 0;
  for (const frame of frames) to += frame.copy(bytes, to);
  const crcs = frames.map((frame, k) => recordBlockCrc(request.blocks[k]!, request.counts[k]!, frame));
  return { id: request.id, crcs, sizes: frames.map((f) => f.byteLength), bytes };
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
