// Where an import's accepted rows go, batch by batch (texts: each row's record as JSON; keys: its
// STATE + PID, KEY_LENGTH characters each, see readRows.ts).
//
// DatasetWriter needs records in ascending (STATE, PID) order, one per PID. The app's own exports
// are already in that order (one file per state in PID order, or one file in (STATE, PID) order),
// so SortedRecords writes rows as they come, with no staging and no sort: about half the
// work of an import; it builds their vectors as it writes, while the reading thread parses on.
// A batch it cannot write (a row out of order, or a PID already written, which must replace the
// earlier row) throws NotSorted, and the import reads again from the start into StagedRecords: the
// staging file, sorted and de-duplicated once everything is read, with the vectors built on the
// reading threads in arrival order and put in (STATE, PID) order at the end (importFiles).
import type { DatasetWriter } from '../dataset/datasetWriter';
import type { RecordValues } from '../dataset/recordFormat';
import { PidSet } from './pidSet';
import { KEY_LENGTH } from './readRows';
import type { Staging } from './staging';

export class NotSorted extends Error {
  constructor() {
    super('The rows are not in (STATE, PID) order.');
  }
}

export class SortedRecords {
  private lastKey = '';
  private readonly pids = new PidSet();
  private writer: DatasetWriter | undefined;
  written = 0;

  /** `open` creates the dataset writer at the first row (an import without valid rows creates none). */
  constructor(private readonly open: () => DatasetWriter) {}

  get dataset(): DatasetWriter | undefined {
    return this.writer;
  }

  /** Writes a batch entirely, or (NotSorted) nothing of it. */
  add(keys: string, texts: readonly string[]): void {
    let last = this.lastKey;
    for (let k = 0; k < texts.length; k++) {
      const at = k * KEY_LENGTH;
      const key = keys.slice(at, at + KEY_LENGTH);
      // Keys compare as (STATE, PID) pairs do: STATE is always 2 characters, PID 32.
      if (key <= last || !this.pids.add(keys, at + 2)) throw new NotSorted();
      last = key;
    }
    this.lastKey = last;
    this.writer ??= this.open();
    for (let k = 0; k < texts.length; k++) {
      // The vectors are built here, from the values (the reading thread is busy parsing).
      const text = texts[k]!;
      this.writer.appendWithJson(JSON.parse(text) as RecordValues, text);
      this.written++;
    }
  }
}

export class StagedRecords {
  private readonly pids = new PidSet();
  /** Whether a PID came twice: only then are there staged duplicates to drop. */
  duplicates = false;

  constructor(readonly staging: Staging) {}

  /** A batch of `reader`'s accepted rows (readRows.ts: keys and JSON texts joined). */
  add(reader: number, keys: string, json: string, count: number): void {
    for (let k = 0; k < count; k++) if (!this.pids.add(keys, k * KEY_LENGTH + 2)) this.duplicates = true;
    this.staging.add(reader, keys, json, count);
  }
}
