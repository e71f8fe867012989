// What the serving start-up writes ahead for the first requests (EmbeddedEngine.ready): memory a
// fresh process would otherwise fault in while it answers them, a 4 KB page at a time (~11 µs a page
// on the slower VM of docs/performance.md). docs/engine.md, "Memory written ahead for first uses".
import type { Dataset } from '../dataset/read/dataset';
import type { PidPaging } from './pidPaging';

/**
 * One-byte vectors whose memory is written ahead (dataset/read/vectorReserve.ts): one for the field
 * of the start-up's own request, one for the first field asked after it.
 */
const RESERVED_VECTORS = 2;
/**
 * Record blocks whose memory is written ahead (dataset/read/blockSlots.ts): 8 MB, the blocks of the
 * start-up's request and of the next four or five first pages of 25 records.
 */
const WRITTEN_AHEAD_BLOCKS = 128;

/** Writes ahead the memory of the first vectors, record blocks and stored PID order chunks the requests read. */
export function writeAheadForFirstRequests(dataset: Dataset, paging: PidPaging): void {
  dataset.reserveVectorMemory(RESERVED_VECTORS);
  dataset.writeAheadBlockMemory(WRITTEN_AHEAD_BLOCKS);
  paging.writeAhead();
}
