// What the read-ahead (fileReadAhead.ts) reads, a step at a time, so that its thread can give way to
// requests between two steps. First, state by state, largest first, what a state's first page
// reads: the chunk of its stored PID order and the record blocks of its first people in PID order.
// Then the B-tree pages above all record blocks, by looking up every INTERIOR_STRIDE-th block by its
// number: on a disk cold all the way down, a page at depth would otherwise read one of those pages
// from the disk for each block besides the block's own (docs/performance.md, "30 November: a file the
// OS has not cached").
import type { Dataset, StateRange } from '../dataset/read/dataset';
import type { BlockReadAhead } from '../dataset/read/blockReadAhead';
import { StoredPidOrder } from './storedPidOrder';

/**
 * People of a state whose blocks are read: a first page of 25 whatever its filters keep of them, down
 * to about two in five. Narrower filters read further into the order, from the disk.
 */
export const FIRST_PAGE_PEOPLE = 64;
/**
 * Every how many blocks one is looked up. A B-tree page above the leaves covers ~500 blocks of the
 * generator's files (~207 leaves of ~2.4 rows at 2 KB pages, measured at 1M), so a lookup every 256
 * reaches each such page at least once: ~3,700 lookups at 30M, ~30,000 for a national file.
 */
export const INTERIOR_STRIDE = 256;
/** Reads between two looks at the gate: ~2.5 ms of a cold disk at ~0.3 ms a read (docs/performance.md), the most a request waits for it. */
export const READS_A_STEP = 8;

/** What the read-ahead did: blocks read whole, and blocks looked up by number. */
export interface ReadAheadCounts {
  blocks: number;
  lookups: number;
}

/**
 * The positions of a state's first `people` people in PID order: its first positions in a file in
 * PID order; in one in household order, from the stored order's chunks (read, so they are cached
 * too). Empty for a file that does not store its orders: a first page there builds the order from
 * all of the state's ranks, and the PID-order warm-up reads those at once after open.
 */
export function firstPagePositions(
  dataset: Dataset,
  range: StateRange,
  people = FIRST_PAGE_PEOPLE,
  // One for a whole run, so a chunk two neighbouring states share is read once.
  order = new StoredPidOrder(dataset, () => null),
): number[] {
  const count = Math.min(people, range.count);
  if (count <= 0) return [];
  if (dataset.inPidOrder) return Array.from({ length: count }, (_, r) => range.first + r);
  if (!dataset.storesPidOrder) return [];
  // The slice a first page reads, through the engine's own reader of stored orders.
  const offsets = order.of(range)(0, count);
  return Array.from(offsets, (offset) => range.first + offset);
}

/** Every `stride`-th block number of a file of `blocks` blocks, from 0. */
export function interiorLookups(blocks: number, stride = INTERIOR_STRIDE): number[] {
  return Array.from({ length: Math.ceil(blocks / stride) }, (_, k) => k * stride);
}

/** The read-ahead of `dataset`, yielding before each step of at most READS_A_STEP reads; `counts` grows as it goes. */
export function* readAheadSteps(dataset: Dataset, reader: BlockReadAhead, counts: ReadAheadCounts): Generator<void, void, void> {
  const states = dataset
    .stateCounts()
    .filter((s) => s.count > 0)
    .sort((a, b) => b.count - a.count);
  const order = new StoredPidOrder(dataset, () => null);
  for (const range of states) {
    yield;
    const blocks = reader.blocksOf(firstPagePositions(dataset, range, FIRST_PAGE_PEOPLE, order));
    for (let i = 0; i < blocks.length; i += READS_A_STEP) {
      if (i > 0) yield;
      for (const block of blocks.slice(i, i + READS_A_STEP)) {
        reader.readRow(block);
        counts.blocks++;
      }
    }
  }
  const lookups = interiorLookups(reader.blockCount);
  for (let i = 0; i < lookups.length; i += READS_A_STEP) {
    yield;
    for (const block of lookups.slice(i, i + READS_A_STEP)) {
      reader.lookUp(block);
      counts.lookups++;
    }
  }
}
