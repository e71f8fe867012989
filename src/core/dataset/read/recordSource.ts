// How records are read by position: the current format's compressed blocks (blockRecords.ts), or an
// older format's rows while it is upgraded (legacy/textRecords.ts). Positions are always ascending.

/** What a read returns of each record: the whole stored text, its UTF-8 bytes, or only its start (the preview's). */
export interface RecordSource {
  /** The stored JSON texts. */
  texts(positions: ArrayLike<number>): string[];
  /** The stored JSON texts as UTF-8 bytes (no decoding). */
  bytes(positions: ArrayLike<number>): Uint8Array[];
  /** The first PREVIEW_CHARS characters or so of each text (the whole text when shorter); a cut text is fine. */
  starts(positions: ArrayLike<number>): string[];
  /** Every piece of the records checked, a step at a time (yields between steps); throws dataset_damaged. */
  verifySteps(): Generator<void, void, void>;
}

/** Characters of a record the preview reads: its first 20 values are ~100 to 300 characters. */
export const PREVIEW_CHARS = 512;
