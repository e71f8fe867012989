// The per-field vectors of a dataset (dictionary codes, hashes, integers, coordinates), built from records one
// at a time: by DatasetWriter from the records it stores, or by the import's readers in arrival
// order, put in (STATE, PID) order later (columnOrder.ts) with the same result. Finished columns
// are plain data, so they cross threads. docs/import.md, "Memory".
import { FIELDS } from '../../../shared/fields';
import type { RecordValues } from '../codec/recordFormat';
import { stringHash, VectorBuilder, type BuiltColumn } from '../codec/columnVector';
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

/**
 * A copy of a string that does not share memory with the text it was cut from: a parser's cells
 * are slices of a whole read chunk, and a dictionary keeping a slice would keep the chunk alive.
 */
const ownCopy = (value: string): string => (' ' + value).slice(1);

const FEW = 16;

let scratchCodes = new Float64Array(BATCH_SIZE);
/** A scratch array for a batch's codes (shared: builders run one at a time). */
function scratch(count: number): Float64Array {
  if (scratchCodes.length < count) scratchCodes = new Float64Array(count);
  return scratchCodes;
}

/** A string field's vector: dictionary codes (order of first appearance), or hashes past the limit. */
class StringColumn {
  codes = new VectorBuilder();
  dict: Map<string, number> | null;
  /** Chunks written to a spill, and the hash of each code when codes were spilled before hashes. */
  readonly chunks: SpilledChunk[] = [];
  private hashOf: Uint32Array | null = null;
  constructor(
    private readonly limit: number,
    hashed: boolean,
  ) {
    this.dict = hashed ? null : new Map();
  }
  // Consecutive records often repeat a value (flags, a household's shared fields, the state):
  // comparing with the last one is cheaper than a dictionary lookup.
  private lastValue: string | undefined;
  private lastCode = 0;
  // The first values, in code order: most string fields have a handful of values (flags, codes),
  // and comparing a fresh string with a few is cheaper than hashing it for the Map.
  private readonly few: string[] = [];
  /**
   * Appends `count` values at src[start], src[start + stride], ...: the codes (or hashes) go to a
   * scratch array and into the vector at once (VectorBuilder.pushStrided), which costs a third of
   * pushing them one by one.
   */
  pushStrided(src: readonly string[], start: number, stride: number, count: number): void {
    const codes = scratch(count);
    const dict = this.dict;
    if (!dict) {
      for (let i = 0, j = start; i < count; i++, j += stride) codes[i] = stringHash(src[j]!);
      return this.codes.pushStrided(codes, 0, 1, count);
    }
    let lastValue = this.lastValue;
    let lastCode = this.lastCode;
    for (let i = 0, j = start; i < count; i++, j += stride) {
      let value = src[j]!;
      if (value === lastValue) {
        codes[i] = lastCode;
        continue;
      }
      let code = this.find(value, dict);
      if (code === undefined) {
        code = dict.size;
        value = ownCopy(value);
        dict.set(value, code);
        if (code < FEW) this.few.push(value);
        if (dict.size > this.limit) {
          // Past the limit: the codes so far go in, become hashes, and the rest are hashed.
          this.codes.pushStrided(codes, 0, 1, i);
          this.switchToHashes(value);
          for (i++, j += stride; i < count; i++, j += stride) this.codes.push(stringHash(src[j]!));
          return;
        }
      }
      lastValue = value;
      lastCode = code;
      codes[i] = code;
    }
    this.lastValue = lastValue;
    this.lastCode = lastCode;
    this.codes.pushStrided(codes, 0, 1, count);
  }
  /** The code of a value already in the dictionary, else undefined. */
  private find(value: string, dict: Map<string, number>): number | undefined {
    if (dict.size > FEW) return dict.get(value);
    const few = this.few;
    for (let c = 0; c < few.length; c++) if (few[c] === value) return c;
    return undefined;
  }
  private switchToHashes(value: string): void {
    const hashOf = new Uint32Array(this.dict!.size);
    let widest = 0;
    for (const [v, code] of this.dict!) widest = Math.max(widest, (hashOf[code] = stringHash(v)));
    const { data } = this.codes.finish();
    const hashes = new VectorBuilder();
    // Every code is some row's (spilled or not): the hashes of all rows so far span [0, widest].
    hashes.admit(0, widest);
    if (this.chunks.length > 0) this.hashOf = hashOf;
    for (let i = 0; i < data.length; i++) hashes.push(hashOf[data[i]!]!);
    hashes.push(stringHash(value));
    this.codes = hashes;
    this.dict = null;
    this.lastValue = undefined;
  }
  finish(field: number): BuiltColumn {
    const { kind, data } = this.codes.finish();
    return { field, encoding: this.dict ? 'dict' : 'hash', kind, data, dict: this.dict ? [...this.dict.keys()] : null };
  }
  spillChunk(spill: VectorSpill): void {
    const { kind, data } = this.codes.takeChunk();
    this.chunks.push(spill.write(data, kind, this.dict !== null));
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

  /** The fields push() reads, by kind, in the order pushParts() takes their values. */
  get stringFieldIndexes(): readonly number[] {
    return this.stringFields;
  }
  get numberFieldIndexes(): readonly number[] {
    return this.numberFields;
  }

  /**
   * push() for a record given as its string values (in stringFieldIndexes order) and its integers
   * and coordinates (numbers[numbersAt...], in numberFieldIndexes order): for a caller that has them apart.
   */
  pushParts(strings: readonly string[], numbers: Float64Array, numbersAt: number): void {
    const ns = this.stringFields.length;
    const batch = this.stringBatch;
    for (let k = 0, at = this.batched * ns; k < ns; k++) batch[at + k] = strings[k]!;
    const ni = this.numberFields.length;
    this.numberBatch.set(numbers.subarray(numbersAt, numbersAt + ni), this.batched * ni);
    this.count++;
    if (++this.batched === BATCH) this.flush();
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
