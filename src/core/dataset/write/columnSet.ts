// The per-field vectors of a dataset (dictionary codes, hashes, integers, coordinates), built from records one
// at a time: by DatasetWriter from the records it stores, or by the import's readers in arrival
// order, put in (STATE, PID) order later (columnOrder.ts) with the same result. Finished columns
// are plain data, so they cross threads. docs/import.md, "Memory".
import { FIELDS } from '../../../shared/fields';
import type { RecordValues } from '../codec/recordFormat';
import { stringHash, VectorBuilder, type BuiltColumn } from '../codec/columnVector';
import { StringCoder } from './stringCoder';
import { loadSpilledColumns, type SpilledChunk, type SpilledColumn, type VectorSpill } from './vectorSpill';

/** Records a ColumnSet gathers row by row before it hands them to the builders column by column. */
const BATCH = 256;
const BATCH_SIZE = BATCH;

// Past this many distinct values a dictionary costs more (memory, build time, load time) than it
// saves: the field switches to hashes (PID, HHID, phones, street addresses at scale).
export const DICTIONARY_LIMIT = 1 << 18;

// Identifiers that are (nearly) one value per person or household: hashed from the first record,
// since growing a dictionary only to throw it away costs a Map entry per record.
export const HASHED_FIELDS = new Set(['PID', 'HHID', 'ADDRID', 'ADDRESS', 'PHONE', 'PHONE2', 'PHONE3']);

/** One field's finished vector, as the dataset's `columns` table stores it. */

let scratchCodes = new Float64Array(BATCH_SIZE);
/** A scratch array for a batch's codes (shared: builders run one at a time). */
function scratch(count: number): Float64Array {
  if (scratchCodes.length < count) scratchCodes = new Float64Array(count);
  return scratchCodes;
}

/** What the codes of a coder on another thread stand for here: its code c is table[c]. */
class CodeSource {
  table = new Uint32Array(256);
  size = 0;
  constructor(
    /** Whether the source sends hashes (from the start for a hashed field, or once it passed its limit). */
    public hashed: boolean,
  ) {}
  add(code: number): void {
    if (this.size === this.table.length) {
      const wider = new Uint32Array(2 * this.size);
      wider.set(this.table);
      this.table = wider;
    }
    this.table[this.size++] = code;
  }
  /** The column became hashed: each code in the table becomes its hash. */
  toHashes(hashOf: Uint32Array): void {
    for (let c = 0; c < this.size; c++) this.table[c] = hashOf[this.table[c]!]!;
  }
}

/** A string field's vector: dictionary codes (order of first appearance), or hashes past the limit. */
class StringColumn {
  codes = new VectorBuilder();
  private readonly coder: StringCoder;
  /** Chunks written to a spill, and the hash of each code when codes were spilled before hashes. */
  readonly chunks: SpilledChunk[] = [];
  private hashOf: Uint32Array | null = null;
  /** The other thread's coder whose codes come to pushCodes(), once some have. */
  private source: CodeSource | undefined;
  constructor(
    limit: number,
    /** Hashed from the first value (HASHED_FIELDS), by every coder. */
    private readonly hashedField: boolean,
  ) {
    this.coder = new StringCoder(limit, hashedField);
  }
  /**
   * Appends `count` values at src[start], src[start + stride], ...: the codes (or hashes) go to a
   * scratch array and into the vector at once (VectorBuilder.pushStrided), which costs a third of
   * pushing them one by one.
   */
  pushStrided(src: readonly string[], start: number, stride: number, count: number): void {
    const codes = scratch(count);
    const passed = this.coder.codeStrided(src, start, stride, count, codes, 0);
    if (passed < 0) return this.codes.pushStrided(codes, 0, 1, count);
    // Past the limit: the codes so far go in and become hashes; the rest are hashes already.
    this.codes.pushStrided(codes, 0, 1, passed);
    this.switchToHashes();
    this.codes.pushStrided(codes, passed, 1, count - passed);
  }
  /**
   * Appends `count` values coded by another thread's coder (the generator's worker, with its own
   * dictionary): codes[start...], the values that coder added meanwhile, in its code order, and
   * the place where it passed the limit, or -1. Its codes become this column's through a table, in
   * the order the records come here, between values coded here (pushStrided), so the dictionary is
   * in order of first appearance as if one coder had seen every record.
   */
  pushCodes(codes: Uint32Array, start: number, count: number, added: readonly string[], passed: number): void {
    const from = (this.source ??= new CodeSource(this.hashedField));
    for (const value of added) from.add(this.globalCode(value));
    const out = scratch(count);
    const table = from.table;
    // Codes up to where the source passed its limit; hashes from there, and all along once it had.
    const coded = from.hashed ? 0 : passed < 0 ? count : passed;
    for (let i = 0; i < coded; i++) out[i] = table[codes[start + i]!]!;
    for (let i = coded; i < count; i++) out[i] = codes[start + i]!;
    if (passed >= 0) from.hashed = true;
    this.codes.pushStrided(out, 0, 1, count);
  }
  /** This column's code of a value a source added (its hash once this column is hashed). */
  private globalCode(value: string): number {
    if (!this.coder.dict) return stringHash(value);
    const code = this.coder.codeOf(value);
    if (code >= 0) return code;
    this.switchToHashes();
    return stringHash(value);
  }
  /** Past the limit: every code given so far, here and in the source's table, becomes its hash. */
  private switchToHashes(): void {
    const dict = this.coder.takeRetired();
    const hashOf = new Uint32Array(dict.size);
    let widest = 0;
    for (const [v, code] of dict) widest = Math.max(widest, (hashOf[code] = stringHash(v)));
    const { data } = this.codes.finish();
    const hashes = new VectorBuilder();
    // Every code is some row's (spilled or not): the hashes of all rows so far span [0, widest].
    hashes.admit(0, widest);
    if (this.chunks.length > 0) this.hashOf = hashOf;
    for (let i = 0; i < data.length; i++) hashes.push(hashOf[data[i]!]!);
    this.codes = hashes;
    this.source?.toHashes(hashOf);
  }
  finish(field: number): BuiltColumn {
    const { kind, data } = this.codes.finish();
    const dict = this.coder.dict;
    return { field, encoding: dict ? 'dict' : 'hash', kind, data, dict: dict ? [...dict.keys()] : null };
  }
  spillChunk(spill: VectorSpill): void {
    const { kind, data } = this.codes.takeChunk();
    this.chunks.push(spill.write(data, kind, this.coder.dict !== null));
  }
  spilled(field: number, path: string): SpilledColumn {
    // The vector itself stays in the spill file; only its description travels.
    const { data: _inSpill, ...rest } = this.finish(field);
    return { ...rest, path, length: this.chunks.reduce((n, c) => n + c.length, 0), chunks: this.chunks, hashOf: this.hashOf };
  }
}

/**
 * Every field's vector: the filterable ones', and LATITUDE's and LONGITUDE's (f64 here; the writer
 * stores them as millionths when that is exact, datasetWriter.ts), which `near` reads. Records
 * are gathered into a row-major batch (a pointer or a float store per value) and go to the builders
 * a column at a time: each builder's loop then runs over one field's values with its own state at
 * hand, and a numeric column is range-checked once a batch rather than value by value.
 */
export class ColumnSet {
  // Field indexes and builders by kind, as parallel arrays, so push() does no type test per value.
  private readonly stringFields: number[] = [];
  private readonly strings: StringColumn[] = [];
  private readonly numberFields: number[] = [];
  private readonly numbers: VectorBuilder[] = [];
  private readonly stringBatch: string[];
  private readonly numberBatch: Float64Array;
  private readonly numberChunks: SpilledChunk[][] = [];
  private batched = 0;
  private spilledRows = 0;
  count = 0;

  /** `spill`: keep the vectors there, a chunk of records at a time, not in memory (vectorSpill.ts). */
  constructor(
    dictionaryLimit = DICTIONARY_LIMIT,
    private readonly spill?: VectorSpill,
  ) {
    FIELDS.forEach((f, i) => {
      if (f.type === 'string') {
        this.stringFields.push(i);
        this.strings.push(new StringColumn(dictionaryLimit, HASHED_FIELDS.has(f.name)));
      } else {
        // Integers, and LATITUDE and LONGITUDE, whose builders widen to f64 at their first fraction.
        this.numberFields.push(i);
        this.numbers.push(new VectorBuilder());
        this.numberChunks.push([]);
      }
    });
    this.stringBatch = new Array<string>(BATCH * this.stringFields.length).fill('');
    this.numberBatch = new Float64Array(BATCH * this.numberFields.length);
  }

  push(values: RecordValues): void {
    const sf = this.stringFields;
    const strings = this.stringBatch;
    for (let k = 0, at = this.batched * sf.length; k < sf.length; k++) strings[at + k] = values[sf[k]!] as string;
    const nf = this.numberFields;
    const numbers = this.numberBatch;
    for (let k = 0, at = this.batched * nf.length; k < nf.length; k++) numbers[at + k] = values[nf[k]!] as number;
    this.count++;
    if (++this.batched === BATCH) this.flush();
  }

  /** The fields push() reads, by kind, in the order pushCoded() takes their values. */
  get stringFieldIndexes(): readonly number[] {
    return this.stringFields;
  }
  get numberFieldIndexes(): readonly number[] {
    return this.numberFields;
  }

  /**
   * `count` records given as codes the coders of another thread gave (stringCoder.ts, one a
   * string field in stringFieldIndexes order): the k-th field's codes at codes[k * count...], the values
   * each coder added meanwhile, and [k, place] for each field that passed the dictionary limit in
   * them; their integers and coordinates record after record (numberFieldIndexes order).
   */
  pushCoded(
    codes: Uint32Array,
    count: number,
    added: readonly (readonly string[])[],
    passed: readonly number[],
    numbers: Float64Array,
  ): void {
    if (this.batched > 0) this.flush(); // records pushed by value before these go in first
    const ns = this.strings.length;
    if (codes.length !== ns * count || added.length !== ns || numbers.length < count * this.numbers.length)
      throw new Error('Coded records came with the wrong number of values.');
    for (let k = 0; k < ns; k++) {
      let at = -1;
      for (let p = 0; p < passed.length; p += 2) if (passed[p] === k) at = passed[p + 1]!;
      this.strings[k]!.pushCodes(codes, k * count, count, added[k]!, at);
    }
    const ni = this.numbers.length;
    for (let k = 0; k < ni; k++) this.numbers[k]!.pushStrided(numbers, k, ni, count);
    this.count += count;
    if (this.spill && this.count - this.spilledRows >= this.spill.chunkRows) this.spillChunk(this.spill);
  }

  private flush(): void {
    const n = this.batched;
    const ns = this.stringFields.length;
    for (let k = 0; k < ns; k++) this.strings[k]!.pushStrided(this.stringBatch, k, ns, n);
    const ni = this.numberFields.length;
    for (let k = 0; k < ni; k++) this.numbers[k]!.pushStrided(this.numberBatch, k, ni, n);
    this.batched = 0;
    if (this.spill && this.count - this.spilledRows >= this.spill.chunkRows) this.spillChunk(this.spill);
  }

  private spillChunk(spill: VectorSpill): void {
    for (const column of this.strings) column.spillChunk(spill);
    this.numbers.forEach((builder, k) => {
      const { kind, data } = builder.takeChunk();
      this.numberChunks[k]!.push(spill.write(data, kind, false));
    });
    this.spilledRows = this.count;
  }

  /**
   * The finished columns in FIELDS order, for a caller that takes them one at a time (a writer):
   * read back from the spill one by one when there is one, else finish()'s.
   */
  finished(): Iterable<BuiltColumn> {
    return this.spill ? loadSpilledColumns(this.spilled()) : this.finish();
  }

  /** The finished columns of a ColumnSet with a spill, as where they are in it (the spill is closed). */
  spilled(): SpilledColumn[] {
    const spill = this.spill;
    if (!spill) throw new Error('This ColumnSet keeps its vectors in memory: use finish().');
    this.flush();
    if (this.count > this.spilledRows || this.spilledRows === 0) this.spillChunk(spill);
    spill.close();
    const out: SpilledColumn[] = new Array(FIELDS.length);
    this.strings.forEach((column, k) => (out[this.stringFields[k]!] = column.spilled(this.stringFields[k]!, spill.path)));
    this.numbers.forEach((builder, k) => {
      const { kind } = builder.finish();
      const chunks = this.numberChunks[k]!;
      const field = this.numberFields[k]!;
      out[field] = {
        field,
        encoding: 'value',
        kind,
        dict: null,
        path: spill.path,
        length: chunks.reduce((n, c) => n + c.length, 0),
        chunks,
        hashOf: null,
      };
    });
    this.strings.length = this.numbers.length = 0;
    return out.filter((c) => c !== undefined);
  }

  /** The finished columns in FIELDS order (the builders are spent). */
  finish(): BuiltColumn[] {
    if (this.spill) throw new Error('This ColumnSet spills its vectors: use finished() or spilled().');
    this.flush();
    const out: BuiltColumn[] = new Array(FIELDS.length);
    for (let k = 0; k < this.strings.length; k++) out[this.stringFields[k]!] = this.strings[k]!.finish(this.stringFields[k]!);
    for (let k = 0; k < this.numbers.length; k++) {
      const { kind, data } = this.numbers[k]!.finish();
      out[this.numberFields[k]!] = { field: this.numberFields[k]!, encoding: 'value', kind, data, dict: null };
    }
    this.strings.length = this.numbers.length = 0;
    return out.filter((c) => c !== undefined);
  }
}

/** One string field's column from its values in final order (see needsRebuild). */
export function buildStringColumn(field: number, values: Iterable<string>, dictionaryLimit = DICTIONARY_LIMIT): BuiltColumn {
  const column = new StringColumn(dictionaryLimit, HASHED_FIELDS.has(FIELDS[field]!.name));
  const batch: string[] = [];
  for (const v of values) {
    batch.push(v);
    if (batch.length === BATCH_SIZE) column.pushStrided(batch.splice(0), 0, 1, BATCH_SIZE);
  }
  if (batch.length > 0) column.pushStrided(batch, 0, 1, batch.length);
  return column.finish(field);
}
