// What the serving start-up writes ahead for the first requests (EmbeddedEngine.ready): memory a
// fresh process would otherwise fault in while it answers them, a 4 KB page at a time (~11 µs a page
// on the slower VM of docs/performance.md). docs/engine.md, "Memory written ahead for first uses".
import type { Dataset } from '../dataset/read/dataset';
import type { VerifyGate } from '../dataset/verify/verifyGate';
import { startWorker } from '../workers/startWorker';
import type { PidPaging } from './pidPaging';

/**
 * One-byte vectors whose memory is written ahead (dataset/read/vectorReserve.ts): one for the field
 * of the start-up's own request, one for the first field asked after it.
 */
const RESERVED_VECTORS = 2;
/**
 * Record blocks whose memory the start-up writes ahead (dataset/read/blockSlots.ts): 8 MB, the blocks
 * of the start-up's request and of the next four or five first pages of 25 records. The other 640
 * slots (40 MB) are written by a thread of their own at once (writeSlotsOnThread), and while requests
 * are quiet where it could not start (writeAheadWhileQuiet): all of them at start-up took ~280 ms more
 * of it on the slower VM (~22 µs a page of shared memory), and without them each of a session's first
 * half-dozen pages of 100 records at depth faulted in ~1,300 pages of fresh slots.
 */
const WRITTEN_AHEAD_BLOCKS = 128;
/** How long requests must have been quiet before the next step: an analyst's clicks leave seconds. */
const QUIET_MS = 50;
/** Slots a step writes: 512 KB, ~3 ms on that VM, the most a request arriving during one waits. */
const SLOTS_A_STEP = 8;
/** Bytes of a reserved vector a step writes, as many as a step of slots. */
const VECTOR_BYTES_A_STEP = 512 * 1024;
/** How often the writer looks for quiet while it has work (an unref'd timer: it never keeps a process alive). */
const LOOK_EVERY_MS = 20;
/** How often it looks whether a field took a reserved vector, once all is written. */
const IDLE_LOOK_EVERY_MS = 250;

/** Writes ahead the memory of the first vectors, record blocks and stored PID order chunks the requests read. */
export function writeAheadForFirstRequests(dataset: Dataset, paging: PidPaging, gate: VerifyGate): void {
  dataset.reserveVectorMemory(RESERVED_VECTORS);
  dataset.blocks.writeAheadSlots(WRITTEN_AHEAD_BLOCKS);
  paging.writeAhead();
  void writeSlotsOnThread(dataset, gate);
  writeAheadWhileQuiet(dataset, gate);
}

/**
 * Starts a thread that writes the rest of the record blocks' memory (slotWriterWorker.ts), at the
 * lowest priority, beside the start-up and the first requests instead of inside them: traffic that
 * never pauses leaves writeAheadWhileQuiet no quiet, and a fresh serve at 10M then faulted the slots
 * in on its requests' threads in its first seconds (~1,000-1,400 faults a page of 100 records at depth).
 * With `gate`, the thread waits while a request computes. Resolves true once written (false when
 * nothing was left, no thread could start or the gate closed first: the quiet writer then does the rest).
 */
export function writeSlotsOnThread(dataset: Dataset, gate?: VerifyGate): Promise<boolean> {
  const unwritten = dataset.blocks.unwrittenSlots();
  const workerData = { ...unwritten, gate: gate?.buffer };
  const worker = unwritten && startWorker('slotWriterWorker', import.meta.url, { workerData });
  if (!unwritten || !worker) return Promise.resolve(false);
  worker.unref();
  return new Promise((resolve) => {
    worker.once('message', () => {
      if (dataset.isOpen) dataset.blocks.slotsWrittenElsewhere(unwritten.generation);
      resolve(true);
    });
    worker.once('error', () => resolve(false));
    worker.once('exit', () => resolve(false));
  });
}

/**
 * Whenever no request has computed for QUIET_MS, one step on this thread (the only one that hands
 * out slots and reserved vectors, so nothing taken between two steps is written over): the rest of
 * the record blocks' memory, then the vector reserve back to RESERVED_VECTORS each time a field's
 * first use took one, so that the next first use after a pause finds its memory written too. Stops
 * when the dataset closes.
 */
export function writeAheadWhileQuiet(dataset: Dataset, gate: VerifyGate, quietMs = QUIET_MS): void {
  let timer: NodeJS.Timeout | undefined;
  const look = (): void => {
    if (!gate.quietFor(quietMs)) return schedule(LOOK_EVERY_MS);
    // Asked each time: the slots get new memory after a read whose worker did not finish.
    if (dataset.blocks.unwrittenSlots()) dataset.blocks.writeAheadMoreSlots(SLOTS_A_STEP);
    else if (!dataset.reserveVectorMemoryStep(RESERVED_VECTORS, VECTOR_BYTES_A_STEP)) return schedule(IDLE_LOOK_EVERY_MS);
    schedule(LOOK_EVERY_MS);
  };
  const schedule = (ms: number): void => {
    timer = setTimeout(look, ms).unref();
  };
  dataset.onClose(() => clearTimeout(timer));
  schedule(LOOK_EVERY_MS);
}
