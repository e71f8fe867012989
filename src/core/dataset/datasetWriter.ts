// Writes a new dataset file: records arrive already in (STATE, PID) order; the writer stores them,
// the per-field vectors and the state ranges, and publishes the file atomically:
// everything goes to `<target>.building-<pid>` and is renamed over the target only once complete and
// synced, so a crash or cancel leaves either the old file or no file, never a partial one.
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { escapeRegExp, removeStaleFiles } from '../fs/staleFiles';
import { FIELDS } from '../../shared/fields';
import { openSqlite, type Db, type Statement } from '../sqlite';
import { stringHash, VectorBuilder, vectorToBlob } from './columnVector';
import type { RecordValues } from './recordFormat';
import { DATASET_DDL, DATASET_FORMAT_VERSION } from './schema';

const BATCH = 5000;
const STATE_INDEX = FIELDS.findIndex((f) => f.name === 'STATE');
const PID_INDEX = FIELDS.findIndex((f) => f.name === 'PID');

// Past this many distinct values a dictionary costs more (memory, build time, load time) than it
// saves: the field switches to hashes (PID, HHID, phones, street addresses at scale).
export const DICTIONARY_LIMIT = 1 << 18;

// Identifiers that are (nearly) one value per person or household: hashed from the first record,
// since growing a dictionary only to throw it away costs a Map entry per record.
const HASHED_FIELDS = new Set(['PID', 'HHID', 'ADDRID', 'ADDRESS', 'PHONE', 'PHONE2', 'PHONE3']);

/** A string field's vector: dictionary codes (order of first appearance), or hashes past the limit. */
class StringColumn {
  codes = new VectorBuilder();
  dict: Map<string, number> | null;
  constructor(private readonly limit: number, hashed: boolean) {
    this.dict = hashed ? null : new Map();
  }
  // Consecutive records often repeat a value (flags, a household's shared fields, the state):
  // comparing with the last one is cheaper than a dictionary lookup.
  private lastValue: string | undefined;
  private lastCode = 0;
  push(value: string): void {
    const dict = this.dict;
    if (!dict) return this.codes.push(stringHash(value));
    if (value === this.lastValue) return this.codes.push(this.lastCode);
    let code = dict.get(value);
    if (code === undefined) {
      code = dict.size;
      dict.set(value, code);
      if (dict.size > this.limit) return this.switchToHashes(value);
    }
    this.lastValue = value;
    this.lastCode = code;
    this.codes.push(code);
  }
  private switchToHashes(value: string): void {
    const hashOf = new Uint32Array(this.dict!.size);
    for (const [v, code] of this.dict!) hashOf[code] = stringHash(v);
    const { data } = this.codes.finish();
    const hashes = new VectorBuilder();
    for (let i = 0; i < data.length; i++) hashes.push(hashOf[data[i]!]!);
    hashes.push(stringHash(value));
    this.codes = hashes;
    this.dict = null;
  }
}

export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class DatasetWriter {
  readonly tempPath: string;
  private readonly db: Db;
  private readonly insertRow: Statement;
  private readonly columns: Array<StringColumn | VectorBuilder | null>;
  // The same columns split by kind, so append() does no type tests per value.
  private readonly stringColumns: Array<[number, StringColumn]>;
  private readonly intColumns: Array<[number, VectorBuilder]>;
  private readonly stateRanges: Array<{ state: string; first: number; count: number }> = [];
  private lastState = '';
  private lastPid = '';
  private pending = 0;
  private done = false;
  count = 0;

  constructor(
    readonly targetPath: string,
    private readonly metadata: Record<string, string> = {},
    /** Distinct values past which a string field is hashed; lowered only by tests. */
    dictionaryLimit = DICTIONARY_LIMIT,
  ) {
    this.tempPath = `${targetPath}.building-${process.pid}`;
    // Our own leftover and those of killed writers to the same target (never a live writer's).
    rmSync(this.tempPath, { force: true });
    removeStaleFiles(dirname(targetPath), new RegExp(`^${escapeRegExp(basename(targetPath))}\\.building-(\\d+)(?:-journal|-wal|-shm)?$`));
    this.db = openSqlite(this.tempPath);
    // A temporary file that is published only when complete needs no journal.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('page_size = 8192');
    this.db.exec(DATASET_DDL);
    this.insertRow = this.db.prepare('INSERT INTO records (_pos, record) VALUES (?, ?)');
    // LATITUDE/LONGITUDE are not filterable, so they get no vector.
    this.columns = FIELDS.map((f) => (f.type === 'string' ? new StringColumn(dictionaryLimit, HASHED_FIELDS.has(f.name)) : f.type === 'integer' ? new VectorBuilder() : null));
    this.stringColumns = this.columns.flatMap((c, i) => (c instanceof StringColumn ? [[i, c] as [number, StringColumn]] : []));
    this.intColumns = this.columns.flatMap((c, i) => (c instanceof VectorBuilder ? [[i, c] as [number, VectorBuilder]] : []));
    this.db.exec('BEGIN');
  }

  /** Appends one record; records must come in ascending (STATE, PID) order with unique PIDs. */
  append(values: RecordValues): void {
    this.appendWithJson(values, JSON.stringify(values));
  }

  /**
   * append() for a caller that already has the record's text, `json` = JSON.stringify(values)
   * exactly (the import serialises each row once, on its reading thread): saves a second stringify.
   */
  appendWithJson(values: RecordValues, json: string): void {
    const state = values[STATE_INDEX] as string;
    const pid = values[PID_INDEX] as string;
    if (state < this.lastState || (state === this.lastState && pid <= this.lastPid))
      throw new Error(`Records must arrive in ascending (STATE, PID) order: ${state} ${pid} after ${this.lastState} ${this.lastPid}`);
    if (state !== this.lastState) this.stateRanges.push({ state, first: this.count, count: 0 });
    this.stateRanges[this.stateRanges.length - 1]!.count++;
    this.lastState = state;
    this.lastPid = pid;

    const pos = this.count++;
    this.insertRow.run(pos, json);
    const strings = this.stringColumns;
    for (let k = 0; k < strings.length; k++) strings[k]![1].push(values[strings[k]![0]] as string);
    const ints = this.intColumns;
    for (let k = 0; k < ints.length; k++) ints[k]![1].push(values[ints[k]![0]] as number);
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  /** Writes the vectors and state ranges, syncs, and renames the file over the target. */
  finish(): { records: number; path: string } {
    const putColumn = this.db.prepare('INSERT INTO columns (name, encoding, kind, dict, data) VALUES (?, ?, ?, ?, ?)');
    FIELDS.forEach((f, i) => {
      const column = this.columns[i];
      if (!column) return;
      const vector = column instanceof StringColumn ? column.codes.finish() : column.finish();
      const encoding = column instanceof StringColumn ? (column.dict ? 'dict' : 'hash') : 'value';
      const dict = column instanceof StringColumn && column.dict ? JSON.stringify([...column.dict.keys()]) : null;
      putColumn.run(f.name, encoding, vector.kind, dict, vectorToBlob(vector.data));
      this.columns[i] = null; // let the memory go as we write
    });
    this.stringColumns.length = 0;
    this.intColumns.length = 0;
    const putState = this.db.prepare('INSERT INTO states (state, first, count) VALUES (?, ?, ?)');
    for (const r of this.stateRanges) putState.run(r.state, r.first, r.count);
    const putMeta = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    const meta = { ...this.metadata, format_version: DATASET_FORMAT_VERSION, records: String(this.count), created_at: new Date().toISOString() };
    for (const [k, v] of Object.entries(meta)) putMeta.run(k, v);
    this.db.exec('COMMIT');
    this.db.close();
    this.done = true;
    fsyncPath(this.tempPath);
    renameSync(this.tempPath, this.targetPath);
    fsyncPath(dirname(this.targetPath));
    return { records: this.count, path: this.targetPath };
  }

  /** Drops the unfinished file; the target is untouched. */
  abort(): void {
    if (this.done) return;
    this.done = true;
    try {
      this.db.close();
    } finally {
      rmSync(this.tempPath, { force: true });
    }
  }
}
