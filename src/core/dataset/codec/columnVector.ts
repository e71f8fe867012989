// Typed per-field vectors: built while a dataset is written, stored as one BLOB per field, read
// back as a typed array. The width adapts to the values (most fields fit one byte per record).
export type VectorKind = 'u8' | 'u16' | 'u32' | 'i32' | 'f64';
export type Vector = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

export const VECTOR_TYPES = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array } as const;

/** The narrowest kind that holds values from min to max (and 0); f64 for any fraction (`whole` false). */
export function kindFor(min: number, max: number, whole = true): VectorKind {
  if (!whole || !Number.isInteger(min) || !Number.isInteger(max)) return 'f64';
  if (min >= 0) {
    if (max <= 0xff) return 'u8';
    if (max <= 0xffff) return 'u16';
    if (max <= 0xffffffff) return 'u32';
    return 'f64';
  }
  if (min >= -0x80000000 && max <= 0x7fffffff) return 'i32';
  return 'f64';
}

/** An append-only numeric vector that widens itself when a value does not fit. */
export class VectorBuilder {
  private kind: VectorKind = 'u8';
  private data: Vector = new Uint8Array(1024);
  private min = 0;
  private max = 0;
  length = 0;

  push(value: number): void {
    if (value < this.min || value > this.max || !Number.isInteger(value)) this.widen(value);
    if (this.length === this.data.length) this.grow(this.kind, this.data.length * 2);
    this.data[this.length++] = value;
  }

  /**
   * push() for `count` values at src[start], src[start + stride], ...: a column of a row-major
   * batch (ColumnSet). One range check and one store loop for the lot, where push() checks each.
   */
  pushStrided(src: Float64Array | Uint32Array, start: number, stride: number, count: number): void {
    let lo = this.min;
    let hi = this.max;
    let whole = true;
    for (let i = 0, j = start; i < count; i++, j += stride) {
      const v = src[j]!;
      if (v < lo) lo = v;
      else if (v > hi) hi = v;
      if (v !== Math.trunc(v)) whole = false;
    }
    // Widening is order-free (the kind of min, max and any fraction), so the batch's extremes do.
    if (!whole) this.widen(0.5);
    if (lo < this.min) this.widen(lo);
    if (hi > this.max) this.widen(hi);
    let capacity = this.data.length;
    while (this.length + count > capacity) capacity *= 2;
    if (capacity !== this.data.length) this.grow(this.kind, capacity);
    const data = this.data;
    for (let i = 0, j = start, at = this.length; i < count; i++, j += stride) data[at + i] = src[j]!;
    this.length += count;
  }

  /** Makes room for values from min to max (whole) without adding any. */
  admit(min: number, max: number): void {
    if (min < this.min) this.widen(min);
    if (max > this.max) this.widen(max);
  }

  /**
   * The values pushed since the last call, as a view valid until the next push; the builder then
   * starts over empty but keeps its width and range, so the chunks together end in the kind
   * finish() would have given them (see vectorSpill.ts).
   */
  takeChunk(): { kind: VectorKind; data: Vector } {
    const chunk = { kind: this.kind, data: this.data.subarray(0, this.length) };
    this.length = 0;
    return chunk;
  }

  private widen(value: number): void {
    this.min = Math.min(this.min, value);
    this.max = Math.max(this.max, value);
    const kind = Number.isInteger(value) ? kindFor(this.min, this.max) : 'f64';
    if (kind !== this.kind) this.grow(kind, this.data.length);
    if (kind === 'f64') {
      this.min = -Infinity;
      this.max = Infinity;
    }
  }

  private grow(kind: VectorKind, capacity: number): void {
    const next = new VECTOR_TYPES[kind](capacity);
    next.set(this.data.subarray(0, this.length));
    this.kind = kind;
    this.data = next;
  }

  finish(): { kind: VectorKind; data: Vector } {
    return { kind: this.kind, data: this.data.subarray(0, this.length) };
  }
}

/** A vector of `length` zeros in shared memory, so a worker thread reads it without a copy (query/twoCoreScan.ts). */
export function sharedVector(kind: VectorKind, length: number): Vector {
  const buffer = new SharedArrayBuffer(length * VECTOR_TYPES[kind].BYTES_PER_ELEMENT);
  switch (kind) {
    case 'u8':
      return new Uint8Array(buffer);
    case 'u16':
      return new Uint16Array(buffer);
    case 'u32':
      return new Uint32Array(buffer);
    case 'i32':
      return new Int32Array(buffer);
    case 'f64':
      return new Float64Array(buffer);
  }
}

/**
 * The vector value of a string in a hashed column (one with too many distinct values to keep a
 * dictionary, such as PID or PHONE): FNV-1a, with 0 kept for the empty string alone so that
 * `""` filters are exact without reading records. Other matches are verified against the record.
 */
export function stringHash(value: string): number {
  if (value === '') return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

/** A field's finished vector as a writer builds it: its values (or codes, hashes) and how they are encoded. */
export interface BuiltColumn {
  /** Index of the field in FIELDS. */
  field: number;
  encoding: 'value' | 'dict' | 'hash' | 'micro';
  kind: VectorKind;
  data: Vector;
  /** The strings of the codes (encoding 'dict'), in code order. */
  dict: string[] | null;
}
