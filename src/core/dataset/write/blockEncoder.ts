// Compresses the dataset writer's record blocks, on a worker thread (blockWorker.ts) once a file is
// large enough to be worth one, so that compressing (the largest single cost of writing a block) runs
// on the second core while the writer's thread gathers the next records. The blocks are stored in the
// order and with the bytes they would have had on one thread: answers come back in order, and the
// writer calls flush() before it inserts anything else, so the file is the same file.
// The writer's code stays synchronous: an answer is taken with receiveMessageOnPort, and waited for
// with Atomics.wait on a counter the worker raises. If the worker cannot start, fails, or goes
// silent, the blocks it holds are compressed here, as when there is none. docs/import.md, "Write".
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { encodeRecordBlock, RECORDS_PER_BLOCK } from '../codec/blockCodec';
import type { ZstdCompressor } from '../codec/zstdContext';
import { startWorker } from '../../workers/startWorker';
import { stopWorker } from '../../workers/stopWorker';
import type { BlockAnswer, BlockRequest, BlockWorkerData } from './blockMessages';

/** Blocks written on this thread before a worker is started: small files are not worth a thread. */
const BLOCKS_BEFORE_WORKER = 64;
/** Blocks sent to the worker in one message (fewer when their texts fill its buffer first): 256 records' worth. */
const BLOCKS_A_MESSAGE = Math.max(1, Math.floor(256 / RECORDS_PER_BLOCK));
/**
 * Messages the worker may hold at once (bounds the texts waiting: ~19 MB of buffers). At the bound
 * the writer waits until half are answered: on a busy machine every wait costs a wake-up, so it
 * waits seldom and long rather than often.
 */
const MESSAGES_IN_FLIGHT = 48;
/**
 * Bytes of a message's buffer: 256 records of ~1.3 KB fit. A block larger than a whole
 * buffer gets a buffer of its size.
 */
const MESSAGE_BYTES = 384 * 1024;
/** How long the writer waits for an answer before it takes the worker for dead and compresses here. */
const SILENT_WORKER_MS = 60_000;

type Insert = (block: number, crc: number, data: Buffer) => void;

/**
 * A message's blocks, their texts in a buffer shared with the worker. Buffers are reused once their
 * message is answered: a fresh one a message paid the first touch of its memory every time (docs/import.md,
 * "Memory touched once"). The texts stay until stored, for a fallback here.
 */
interface Message {
  id: number;
  texts: SharedArrayBuffer;
  bytes: Uint8Array;
  used: number;
  blocks: number[];
  counts: number[];
  sizes: number[];
}

export class BlockEncoder {
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private answered: Int32Array | undefined;
  /** Whether a worker may still be started (not after one failed, nor after close()). */
  private workerAllowed: boolean;
  private written = 0;
  /** The worker ended by itself (a crash): what it holds is compressed here. */
  private exited = false;
  private nextId = 0;
  /** Blocks the worker compressed (a test's way to know the second thread did work). */
  blocksOnWorker = 0;
  /** The message being filled, not sent yet. */
  private gathering: Message | undefined;
  /** Messages sent and not answered, oldest first. */
  private readonly inFlight: Message[] = [];
  /** Answered messages, their buffers free for the next ones. */
  private readonly spare: Message[] = [];

  constructor(
    private readonly level: number,
    /** The writer's compressor, for blocks compressed on this thread. */
    private readonly compressor: ZstdCompressor,
    private readonly insert: Insert,
    useWorker = true,
  ) {
    this.workerAllowed = useWorker;
  }

  /**
   * A block of `count` records, `text` their texts joined by newlines in UTF-8 (copied: the caller
   * may reuse its buffer at once); stored (insert) now or by a later call of this or flush().
   */
  add(block: number, count: number, text: Uint8Array): void {
    this.written++;
    if (!this.worker && (!this.workerAllowed || this.written <= BLOCKS_BEFORE_WORKER || !this.start())) {
      const { data, crc } = encodeRecordBlock(block, count, text, this.compressor);
      this.insert(block, crc, data);
      return;
    }
    let message = (this.gathering ??= this.emptyMessage(text.byteLength));
    if (message.used + text.byteLength > message.bytes.byteLength) {
      this.send();
      message = this.gathering = this.emptyMessage(text.byteLength);
    }
    message.bytes.set(text, message.used);
    message.used += text.byteLength;
    message.blocks.push(block);
    message.counts.push(count);
    message.sizes.push(text.byteLength);
    if (message.blocks.length >= BLOCKS_A_MESSAGE) this.send();
    this.take(this.inFlight.length >= MESSAGES_IN_FLIGHT ? MESSAGES_IN_FLIGHT / 2 : 0);
  }

  /** Stores every block given so far. */
  flush(): void {
    if (this.gathering) this.send();
    this.take(this.inFlight.length);
  }

  /** Stops the worker; blocks not flushed are dropped (the writer is finishing or aborting). */
  close(): void {
    this.workerAllowed = false;
    this.gathering = undefined;
    this.inFlight.length = this.spare.length = 0;
    this.stopWorker();
  }

  /** A message with room for `bytes` at least: a spare one when there is one. */
  private emptyMessage(bytes: number): Message {
    const message = this.spare.pop();
    if (message && message.bytes.byteLength >= bytes) {
      message.used = 0;
      message.blocks = [];
      message.counts = [];
      message.sizes = [];
      return message;
    }
    const texts = new SharedArrayBuffer(Math.max(MESSAGE_BYTES, bytes));
    return { id: -1, texts, bytes: new Uint8Array(texts), used: 0, blocks: [], counts: [], sizes: [] };
  }

  private start(): boolean {
    const answered = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const workerData: BlockWorkerData & { port: MessagePort } = { level: this.level, answered, port: port2 };
    const worker = startWorker('blockWorker', import.meta.url, { workerData, transferList: [port2] });
    if (!worker) {
      port1.close();
      this.workerAllowed = false;
      return false;
    }
    worker.unref();
    worker.on('error', () => undefined); // followed by 'exit'
    // Seen when this thread's event loop runs (the import lets it in between runs of records); a
    // worker that dies while the writer runs on without a pause is caught by its silence instead.
    worker.on('exit', () => {
      if (this.worker === worker) this.exited = true;
    });
    this.worker = worker;
    this.port = port1;
    this.answered = new Int32Array(answered);
    return true;
  }

  private send(): void {
    const message = this.gathering!;
    this.gathering = undefined;
    message.id = this.nextId++;
    const { id, blocks, counts, sizes, texts } = message;
    const request: BlockRequest = { id, blocks, counts, sizes, texts };
    this.inFlight.push(message);
    this.port!.postMessage(request);
  }

  /** Stores the answers that have come, waiting until at least `atLeast` messages are answered. */
  private take(atLeast: number): void {
    let taken = 0;
    while (this.inFlight.length > 0) {
      const seen = Atomics.load(this.answered!, 0);
      const received = receiveMessageOnPort(this.port!) as { message: BlockAnswer } | undefined;
      if (received) {
        this.store(received.message);
        taken++;
        continue;
      }
      if (taken >= atLeast) return;
      if (this.exited) return this.compressHere();
      if (Atomics.wait(this.answered!, 0, seen, SILENT_WORKER_MS) === 'timed-out' && Atomics.load(this.answered!, 0) === seen) {
        this.compressHere();
        return;
      }
    }
  }

  private store(answer: BlockAnswer): void {
    const sent = this.inFlight.shift();
    if (!sent || sent.id !== answer.id || 'error' in answer || answer.sizes.length !== sent.blocks.length) {
      // Not the answer expected: everything still held is compressed here, in order.
      if (sent) this.inFlight.unshift(sent);
      this.compressHere();
      return;
    }
    let at = answer.bytes.byteOffset;
    answer.sizes.forEach((size, k) => {
      this.insert(sent.blocks[k]!, answer.crcs[k]!, Buffer.from(answer.bytes.buffer, at, size));
      at += size;
    });
    this.blocksOnWorker += sent.blocks.length;
    this.spare.push(sent);
  }

  /** The worker failed or went silent: it is dropped and the blocks it held are compressed on this thread. */
  private compressHere(): void {
    this.workerAllowed = false;
    this.stopWorker();
    const held = this.inFlight.splice(0);
    if (this.gathering) held.push(this.gathering);
    this.gathering = undefined;
    for (const { bytes, blocks, counts, sizes } of held) {
      let at = 0;
      blocks.forEach((block, k) => {
        const { data, crc } = encodeRecordBlock(block, counts[k]!, bytes.subarray(at, at + sizes[k]!), this.compressor);
        this.insert(block, crc, data);
        at += sizes[k]!;
      });
    }
  }

  private stopWorker(): void {
    // Asked by closing its port, after which it ends itself: terminating it could land while it
    // builds a zstd stream, which aborts the process (workers/stopWorker.ts).
    const port = this.port;
    if (this.worker) void stopWorker(this.worker, () => port?.close());
    else port?.close();
    this.worker = undefined;
    this.port = undefined;
  }
}
