// Which thread builds which vectors of staged rows (rows not in (STATE, PID) order). The reading
// thread parses, checks and serialises each row (~15 µs) and the writing thread stages it (~8 µs)
// and has time left, so the fields are shared: the writing thread parses each staged record once
// (~8 µs) and builds the vectors of WRITER_SHARE of the string fields; the reading thread builds
// the rest, integers included. Each thread's vectors are whole (every row, in arrival order), so
// the two sets only need putting side by side. Rows in (STATE, PID) order do not use this: their
// vectors are all built by the writing thread as it stores them.
import { FIELDS } from '../../shared/fields';
import type { BuiltColumn } from '../dataset/columnSet';

/** Of every 9 string fields, how many the writing thread builds (tuned on the 200k-row bench). */
const WRITER_SHARE = 4;

const byWriter: readonly boolean[] = (() => {
  let ordinal = 0;
  return FIELDS.map((f) => f.type === 'string' && ordinal++ % 9 < WRITER_SHARE);
})();

export const readerBuilds = (field: number): boolean => FIELDS[field]!.type !== 'number' && !byWriter[field];
export const writerBuilds = (field: number): boolean => byWriter[field]!;

/** The two threads' vectors as one set, in field order. */
export function sideBySide(reader: readonly BuiltColumn[], writer: readonly BuiltColumn[]): BuiltColumn[] {
  return [...reader, ...writer].sort((a, b) => a.field - b.field);
}
