// Worker-thread entry of an export's renderer (renderBatches.ts): renders each batch it is sent and
// posts the bytes back (their memory moved, not copied), or the error's message.
import { parentPort } from 'node:worker_threads';
import { renderBatch, type RenderFormat } from './renderBatch';

export interface RenderRequest {
  id: number;
  format: RenderFormat;
  texts: string[];
}

export type RenderReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

const port = parentPort!;
port.on('message', ({ id, format, texts }: RenderRequest) => {
  try {
    const bytes = renderBatch(format, texts);
    // A Buffer this size owns its memory (only small ones share a pool), so it can be moved.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : Uint8Array.prototype.slice.call(bytes);
    port.postMessage({ id, bytes: own } satisfies RenderReply, [own.buffer as ArrayBuffer]);
  } catch (e) {
    port.postMessage({ id, error: (e as Error).message } satisfies RenderReply);
  }
});
