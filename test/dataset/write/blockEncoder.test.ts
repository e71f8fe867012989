// Record blocks compressed on a second thread (blockEncoder.ts, blockWorker.ts) must be stored exactly
// as the writer's own thread would store them: the same bytes and checksums, in block order, every
// block given before a flush() stored when it returns. The file is then the same file (the import's
// and the generator's determinism tests compare whole files).
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { RECORD_LEVEL, RECORDS_PER_BLOCK } from '../../../src/core/dataset/codec/blockCodec';
import { ZstdCompressor } from '../../../src/core/dataset/codec/zstdContext';
import { BlockEncoder } from '../../../src/core/dataset/write/blockEncoder';
import { generateStored } from '../../../src/core/generate';

interface Stored {
  block: number;
  crc: number;
  data: string;
}

/** The blocks of these texts as the encoder stores them, and how many the worker compressed. */
function encode(blocks: string[][], useWorker: boolean, flushEvery: number): { stored: Stored[]; onWorker: number } {
  const stored: Stored[] = [];
  const compressor = new ZstdCompressor(RECORD_LEVEL);
  const encoder = new BlockEncoder(
    RECORD_LEVEL,
    compressor,
    (block, crc, data) => stored.push({ block, crc, data: data.toString('hex') }),
    useWorker,
  );
  blocks.forEach((texts, block) => {
    encoder.add(block, texts.length, Buffer.from(texts.join('\n')));
    if ((block + 1) % flushEvery === 0) {
      encoder.flush();
      expect(stored.length).toBe(block + 1);
    }
  });
  encoder.flush();
  expect(stored.length).toBe(blocks.length);
  const onWorker = encoder.blocksOnWorker;
  encoder.close();
  compressor.close();
  return { stored, onWorker };
}

/** 401 blocks of generated records' texts, the last a short one. */
function blockTexts(): string[][] {
  const texts = [...generateStored(400 * RECORDS_PER_BLOCK, 11)].map(({ record }) => JSON.stringify(record));
  const blocks: string[][] = [];
  for (let at = 0; at < texts.length; at += RECORDS_PER_BLOCK) blocks.push(texts.slice(at, at + RECORDS_PER_BLOCK));
  blocks.push(texts.slice(0, 5));
  return blocks;
}

describe('record blocks compressed on a worker', () => {
  it('are stored with the bytes, checksums and order of the writer thread', () => {
    const blocks = blockTexts();
    const here = encode(blocks, false, 1000);
    expect(here.onWorker).toBe(0);
    // Flushes at odd moments (as the writer's inserts of other tables and commits make them) too.
    for (const flushEvery of [1000, 37]) {
      const there = encode(blocks, true, flushEvery);
      expect(there.onWorker).toBeGreaterThan(blocks.length / 2);
      expect(there.stored).toEqual(here.stored);
    }
  });

  it('are compressed on the writer thread, the same, when the worker dies holding some', async () => {
    const blocks = blockTexts();
    const here = encode(blocks, false, 1000);
    const stored: Stored[] = [];
    const compressor = new ZstdCompressor(RECORD_LEVEL);
    const encoder = new BlockEncoder(RECORD_LEVEL, compressor, (block, crc, data) =>
      stored.push({ block, crc, data: data.toString('hex') }),
    );
    const add = (block: number): void => encoder.add(block, blocks[block]!.length, Buffer.from(blocks[block]!.join('\n')));
    for (let block = 0; block < 200; block++) add(block);
    // The worker stops with messages in its hands; the writer learns of it from its exit.
    await (encoder as unknown as { worker: Worker }).worker.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    for (let block = 200; block < blocks.length; block++) add(block);
    encoder.flush();
    expect(stored).toEqual(here.stored);
    expect(encoder.blocksOnWorker).toBeLessThanOrEqual(200 - 64); // the first 64 are always compressed here
    encoder.close();
    compressor.close();
  });
});
