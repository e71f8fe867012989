// Where an import's accepted rows go, batch by batch (texts: each row's record as JSON; keys: its
// STATE + PID, KEY_LENGTH characters each, see readRows.ts).
//
// DatasetWriter needs records in ascending (STATE, PID) order, one per PID. The app's own exports
// are already in that order (one file per state in PID order, or one file in (STATE, PID) order),
// so SortedRecords writes rows as they come, with no staging and no sort: about half the
// work of an import; it builds their vectors as it writes, while the reading thread parses on.
// A batch it cannot write (a row out of order, or its PID again in the same state, which must
// replace the earlier row) throws NotSorted; so does, once everything is read, a PID that came back
// under a later state (pidFingerprints.ts). The import then reads again from the start into
// StagedRecords: the staging file, sorted and de-duplicated once everything is read, with the
// vectors built on the reading threads in arrival order and put in (STATE, PID) order at the end
// (importFiles).
import type { DatasetWriter } from '../dataset/datasetWriter';
import type { RecordValues } from '../dataset/recordFormat';
import { PidFingerprints } from './pidFingerprints';
import { KEY_LENGTH } from './readRows';
import type { Staging } from './staging';

export class NotSorted extends Error {
  constructor() {
    super('The rows are not in (STATE, PID) order.');
  }
}

export class SortedRecords {
  private lastKey = '';
  private readonly pids = new PidFingerprints();
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
      if (key <= last) throw new NotSorted();
      last = key;
    }
    this.lastKey = last;
    for (let k = 0; k < texts.length; k++) this.pids.add(keys, k * KEY_LENGTH + 2);
    this.writer ??= this.open();
    for (let k = 0; k < texts.length; k++) {
      // The vectors are built here, from the values (the reading thread is busy parsing).
      const text = texts[k]!;
      this.writer.appendWithJson(JSON.parse(text) as RecordValues, text);
      this.written++;
    }
  }

  /** Once every row is read: NotSorted when a PID may have come under two states (see above). */
  checkPids(): void {
    if (this.pids.mayRepeat()) throw new NotSorted();
  }
}

export class StagedRecords {
  constructor(readonly staging: Staging) {}

  /** A batch of `reader`'s accepted rows (readRows.ts: keys and JSON texts joined). */
  add(reader: number, keys: string, json: string, count: number): void {
    this.staging.add(reader, keys, json, count);
  }
}
