// What the dataset writer works out from a record besides storing its text: the fingerprint of its
// HHID (householdCollisions.ts) and its stored list keys (listKeys.ts). The import's write phase once
// gave the writer each record's text alone, and the writer parsed these out of it on the thread that
// phase waits on. The import's readers hold each row's values anyway, so they work these out beside the row's text, in
// parallel, and the staging keeps them with it; the write phase then hands the text on as bytes,
// never made into a string (docs/import.md, "Write"). The HHID's own stringHash is not here: it
// travels in the row's key (read/batch.ts).
import { fieldIndex } from '../../../shared/fields';
import { fingerprint } from '../format/householdCollisions';
import { LIST_KEY_FIELDS, storedListKeys } from '../format/listKeys';

/** Words a record's extras take: its HHID's fingerprint, then its list keys in LIST_KEY_FIELDS order. */
export const RECORD_EXTRA_WORDS = 2 + LIST_KEY_FIELDS.length;
/** Where the list keys start among a record's extras. */
export const LIST_KEYS_AT = 2;

const HHID = fieldIndex('HHID');

/** A record's extras into out[at...], from `value(index)`, its value of a catalog field. */
export function recordExtras(value: (index: number) => string | number | undefined, out: Uint32Array, at: number): void {
  const hhid = value(HHID);
  if (typeof hhid !== 'string') throw new Error('A record without an HHID string was staged.');
  fingerprint(hhid, out, at);
  storedListKeys(value, out, at + LIST_KEYS_AT);
}

/** A record as its UTF-8 text and what the writer needs of it besides (the import's staging gives these). */
export interface RecordBytes {
  state: string;
  /** The text is bytes [start, end) of `bytes`. */
  bytes: Uint8Array;
  start: number;
  end: number;
  /** Its PID's rank in its state (pidRanks.ts). */
  rank: number;
  /** stringHash of its HHID. */
  hhidHash: number;
  /** Its extras are extras[extrasAt...] (recordExtras). */
  extras: Uint32Array;
  extrasAt: number;
}

/** A record's text as a string. */
export function recordText({ bytes, start, end }: RecordBytes): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
}
