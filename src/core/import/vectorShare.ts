// Which thread builds which vectors of staged rows (rows not in (STATE, PID) order).
// - Two readers (readShares.ts): each builds every vector over the rows it reads ('all'); the
//   writing thread only stages. The two sets are merged when they are put in final order.
// - One reader (a small input, or a cut that fell inside a quoted field): the reading thread
//   parses, checks and serialises each row (~15 µs) and the writing thread stages it and has time
//   left, so the
//   fields are shared ('share'): the writing thread parses each staged record once (~8 µs) and
//   builds the vectors of WRITER_SHARE of the string fields; the reading thread builds the rest,
//   integers included. Each thread's vectors are whole (every row, in arrival order).
// Rows in (STATE, PID) order do not use this: their vectors are all built by the writing thread
// as it stores them.
import { FIELDS } from '../../shared/fields';

export type ReaderBuilds = 'all' | 'share' | 'none';

/** Of every 9 string fields, how many the writing thread builds (tuned on the 200k-row bench). */
const WRITER_SHARE = 4;

const byWriter: readonly boolean[] = (() => {
  let ordinal = 0;
  return FIELDS.map((f) => f.type === 'string' && ordinal++ % 9 < WRITER_SHARE);
})();

export const writerBuilds = (field: number): boolean => byWriter[field]!;

/** The fields whose vectors a reader builds, or undefined for none. */
export function vectorsBuilt(build: ReaderBuilds): ((field: number) => boolean) | undefined {
  if (build === 'none') return undefined;
  if (build === 'all') return () => true;
  return (field) => FIELDS[field]!.type !== 'number' && !byWriter[field];
}
