// List keys: each record's PID, phones and address as a suppression list writes them
// (src/shared/normalize.ts), hashed, so that a list's matcher finds its candidates in vectors and reads
// only their records instead of every record of the dataset (docs/dataset-format.md, "List keys").
// A record's key of a field is stringHash() of its normalised value (0 when it has none). Most
// stored values are already normalised, so the file keeps each key XORed with a "base" every reader
// can rebuild from the vectors alone (the field's own hash; for an address, that hash continued over
// "|" and the record's ZIP): a chunk of zeros is not written, and an absent chunk means zeros.
import { fieldIndex } from '../../../shared/fields';
import { NORMALIZATION_RULES, normalizeAddress, normalizePhone, normalizePid } from '../../../shared/normalize';
import type { Db, Statement } from '../../sqlite';
import { stringHash, type Vector } from '../codec/columnVector';
import { datasetDamaged } from './damage';
import type { ChunkLayout, VectorHeader } from '../codec/vectorChunks';

/** The meta entry: which rules and fields the keys were written with. */
export const LIST_KEYS_KEY = 'list_keys';

/** The fields a list names a person by. */
export const LIST_KEY_FIELDS = ['PID', 'PHONE', 'PHONE2', 'PHONE3', 'ADDRESS'] as const;
export type ListKeyField = (typeof LIST_KEY_FIELDS)[number];

const PID = fieldIndex('PID');
const ADDRESS = fieldIndex('ADDRESS');
const ZIP = fieldIndex('ZIP');
const PHONES = ['PHONE', 'PHONE2', 'PHONE3'].map(fieldIndex);

/** The meta value a writer stores: this version's rules and every field of LIST_KEY_FIELDS. */
export function listKeysMeta(): string {
  return JSON.stringify({ rules: NORMALIZATION_RULES, fields: LIST_KEY_FIELDS });
}

/** Whether a file's meta says its keys were written with this version's rules for every field. */
export function listKeysUsable(meta: Readonly<Record<string, string>>): boolean {
  const value = meta[LIST_KEYS_KEY];
  if (value === undefined) return false;
  try {
    const parsed = JSON.parse(value) as { rules?: unknown; fields?: unknown };
    return (
      parsed.rules === NORMALIZATION_RULES &&
      Array.isArray(parsed.fields) &&
      LIST_KEY_FIELDS.every((f) => (parsed.fields as unknown[]).includes(f))
    );
  } catch {
    return false;
  }
}

/** The key of a normalised value: its stringHash, 0 for none. */
export const listKey = (normalized: string | null): number => (normalized === null ? 0 : stringHash(normalized));

/**
 * stringHash's FNV-1a continued from a hash over more text: the base of an address key, from the
 * ADDRESS vector's hash and the ZIP. Not always the hash of the joined text (stringHash keeps 0 for
 * the empty string and turns a 0 result into 1), and it need not be: writer and reader compute it alike.
 */
export function continuedHash(hash: number, more: string): number {
  let h = hash === 0 ? 0x811c9dc5 : hash;
  for (let i = 0; i < more.length; i++) h = Math.imul(h ^ more.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const text = (v: string | number | undefined): string => (v === undefined ? '' : String(v));

// A household's members follow each other in a file and share its address (docs/dataset-format.md,
// "Record order"): the last address's stored key is kept, sparing its normalisation for the next members.
let lastAddress: string | undefined;
let lastZip = '';
let lastAddressKey = 0;

/**
 * What the file stores for a record, key XOR base, for each field of LIST_KEY_FIELDS (into `out` from
 * `at`, in that order), from `value(index)`, the record's value of a catalog field.
 */
export function storedListKeys(value: (index: number) => string | number | undefined, out: Uint32Array, at = 0): void {
  const pid = text(value(PID));
  out[at] = (listKey(normalizePid(pid)) ^ stringHash(pid)) >>> 0;
  for (let k = 0; k < PHONES.length; k++) {
    const phone = text(value(PHONES[k]!));
    out[at + 1 + k] = (phone === '' ? 0 : listKey(normalizePhone(phone)) ^ stringHash(phone)) >>> 0;
  }
  const address = text(value(ADDRESS));
  const zip = text(value(ZIP));
  if (address !== lastAddress || zip !== lastZip) {
    lastAddressKey = (listKey(normalizeAddress(address, zip)) ^ continuedHash(stringHash(address), `|${zip}`)) >>> 0;
    lastAddress = address;
    lastZip = zip;
  }
  out[at + 4] = lastAddressKey;
}

/** The name a list key chunk's CRC is computed under (vectorChunks.ts): its own, so it is never taken for a vector's chunk. */
const keyName = (field: ListKeyField): string => `list key ${field}`;

/** The header a list key chunk is checked under. */
function keyHeader(field: ListKeyField, records: number): VectorHeader {
  return { name: keyName(field), encoding: 'hash', kind: 'u32', length: records, dict: null };
}

/**
 * Writes a file's list keys as records arrive in position order: a chunk at a time, and only the
 * chunks with a key that differs from its base, so a file of normalised values stores next to nothing.
 */
export class ListKeyWriter {
  private readonly current: Uint32Array[];
  private readonly differs = new Uint8Array(LIST_KEY_FIELDS.length);
  private readonly one = new Uint32Array(LIST_KEY_FIELDS.length);
  private chunk = 0;
  private filled = 0;

  constructor(
    private readonly layout: ChunkLayout,
    private readonly put: (field: ListKeyField, chunk: number, crc: number, data: Buffer) => void,
  ) {
    this.current = LIST_KEY_FIELDS.map(() => new Uint32Array(layout.size));
  }

  /** The next position's record, by `value(index)`. */
  add(value: (index: number) => string | number | undefined): void {
    storedListKeys(value, this.one);
    this.addStored(this.one, 0);
  }

  /** add() for the keys storedListKeys() gave, at keys[at...] (the import's readers work them out: recordExtras.ts). */
  addStored(keys: Uint32Array, at: number): void {
    for (let f = 0; f < LIST_KEY_FIELDS.length; f++) {
      const v = keys[at + f]!;
      this.current[f]![this.filled] = v;
      if (v !== 0) this.differs[f] = 1;
    }
    if (++this.filled === this.layout.size) this.flush();
  }

  /** Writes the last, partial chunk. */
  finish(): void {
    if (this.filled > 0) this.flush();
  }

  private flush(): void {
    LIST_KEY_FIELDS.forEach((field, f) => {
      if (!this.differs[f]) return;
      const { data, crc } = this.layout.encodeValues(keyName(field), this.chunk, this.current[f]!.subarray(0, this.filled));
      this.put(field, this.chunk, crc, data);
    });
    this.differs.fill(0);
    this.chunk++;
    this.filled = 0;
  }
}

/** A file's stored list keys, read for a state's range at a time. */
export class ListKeyReader {
  private readonly chunkStmt: Statement;
  private readonly allStmt: Statement;

  constructor(
    db: Db,
    private readonly path: string,
    private readonly layout: ChunkLayout,
    private readonly records: number,
    /** Whether the keys were written under this version's rules (listKeysUsable): only then are they read. */
    readonly usable: boolean,
  ) {
    this.chunkStmt = db.prepare('SELECT crc, data FROM list_keys WHERE name = ? AND chunk = ?');
    this.allStmt = db.prepare('SELECT name, chunk FROM list_keys ORDER BY name, chunk');
  }

  /**
   * The keys of `field` at positions [first, first + count), index 0 for `first`. `own`: the field's
   * hash vector's values there (index 0 for `first`); for ADDRESS, `zip`: the ZIP vector's codes
   * there and its dictionary.
   */
  read(field: ListKeyField, first: number, count: number, own: Vector, zip?: { codes: Vector; dict: readonly string[] }): Uint32Array {
    const out = new Uint32Array(count);
    if (zip) {
      const suffixes = zip.dict.map((z) => `|${z}`);
      for (let k = 0; k < count; k++) out[k] = continuedHash(own[k]!, suffixes[zip.codes[k]!]!);
    } else {
      out.set(own.subarray(0, count));
    }
    const header = keyHeader(field, this.records);
    const { from, to } = this.layout.covering(first, count);
    for (let c = from; c < to; c++) {
      const stored = this.chunkStmt.get(field, c) as { crc: number; data: Uint8Array } | undefined;
      if (!stored) continue;
      const values = new Uint32Array(this.layout.values(c, this.records));
      this.layout.decode(this.path, header, c, stored, new Uint8Array(values.buffer));
      const start = c * this.layout.size;
      const lo = Math.max(first, start);
      const hi = Math.min(first + count, start + values.length);
      for (let p = lo; p < hi; p++) out[p - first] = (out[p - first]! ^ values[p - start]!) >>> 0;
    }
    return out;
  }

  /** Checks every stored chunk (cli verify, the background verify): a step a chunk. */
  *verifySteps(): Generator<void, void, void> {
    // The chunks' names first: a statement left iterating across steps would keep the connection busy.
    for (const { name, chunk } of this.allStmt.all() as Array<{ name: string; chunk: number }>) {
      const field = LIST_KEY_FIELDS.find((f) => f === name);
      if (!field) throw datasetDamaged(this.path, `list keys of an unknown field ${JSON.stringify(name.slice(0, 40))} are stored`);
      const stored = this.chunkStmt.get(field, chunk) as { crc: number; data: Uint8Array };
      this.layout.checked(this.path, keyHeader(field, this.records), chunk, stored);
      yield;
    }
  }
}
