// Worker-thread entry of an export's renderer (renderBatches.ts): renders each batch it is sent and
// posts the bytes back (their memory moved, not copied), or the error's message.
import { parentPort } from 'node:worker_threads';
import { renderBatch, type RenderFormat } from './renderBatch';

export interface RenderRequest {
  id: number;
  format: RenderFormat;
  texts: string[];
}

/** The batch's bytes are the first `length` of `buffer` (the whole allocation moves, uncopied). */
export type RenderReply = { id: number; buffer: ArrayBuffer; length: number } | { id: number; error: string };

const port = parentPort!;
port.on('message', ({ id, format, texts }: RenderRequest) => {
  try {
    const bytes = renderBatch(format, texts);
    // A batch's buffer owns its memory and starts it; a small one shares Node's pool and is copied.
    const own = bytes.byteOffset === 0 && bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes);
    const buffer = own.buffer as ArrayBuffer;
    port.postMessage({ id, buffer, length: own.byteLength } satisfies RenderReply, [buffer]);
  } catch (e) {
    port.postMessage({ id, error: (e as Error).message } satisfies RenderReply);
  }
});
