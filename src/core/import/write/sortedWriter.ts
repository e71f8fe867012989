// The fast path for rows that come in (STATE, PID) order (the app's own exports): each batch is
// written straight into the dataset as it arrives, its vectors built here while the reader parses
// on; no staging, no sort. A batch that breaks the order (or repeats a PID within a state) is
// refused whole, and a PID that came back under a later state shows once every row is read: the
// import then starts again, staging every row. docs/import.md, "How it works".
import type { DatasetWriter } from '../../dataset/datasetWriter';
import type { RecordValues } from '../../dataset/recordFormat';
import { KEY_LENGTH } from '../read/batch';
import { PidFingerprints } from '../stage/pidFingerprints';

export class SortedWriter {
  private lastKey = '';
  private readonly pids = new PidFingerprints();
  private writer: DatasetWriter | undefined;
  written = 0;

  /** `open` creates the dataset writer at the first row (an import without valid rows creates none). */
  constructor(private readonly open: () => DatasetWriter) {}

  get dataset(): DatasetWriter | undefined {
    return this.writer;
  }

  /** Writes a batch whole and says true, or writes nothing of it and says false (not in order). */
  add(keys: string, texts: readonly string[]): boolean {
    let last = this.lastKey;
    for (let k = 0; k < texts.length; k++) {
      const at = k * KEY_LENGTH;
      const key = keys.slice(at, at + KEY_LENGTH);
      // Keys compare as (STATE, PID) pairs do: STATE is always 2 characters, PID 32.
      if (key <= last) return false;
      last = key;
    }
    this.lastKey = last;
    for (let k = 0; k < texts.length; k++) this.pids.add(keys, k * KEY_LENGTH + 2);
    this.writer ??= this.open();
    for (let k = 0; k < texts.length; k++) {
      const text = texts[k]!;
      this.writer.appendWithJson(JSON.parse(text) as RecordValues, text);
      this.written++;
    }
    return true;
  }

  /** Once every row is read: false when a PID may have come under two states (staging decides exactly). */
  pidsUnique(): boolean {
    return !this.pids.mayRepeat();
  }

  /** Drops what was written (the import starts again, or failed). */
  abandon(): void {
    this.writer?.abort();
    this.written = 0;
  }
}
