// Typed arrays over memory kept from one field's vector to the next, for a thread that handles ~390
// vectors of the same length one after the other (the import's order worker: each field's parts read
// back, joined, put in order, encoded, written, then the next field). A new array each time was
// memory never touched before, a page fault a 4 KB page, and garbage for V8 to collect: ~0.2 s of
// collections on that thread in a four-state import (docs/import.md, "Memory touched once").
import { VECTOR_TYPES, type Vector, type VectorKind } from '../codec/columnVector';

/**
 * Where a vector of `length` values of `kind` comes from, for a named use: a fresh array, or one
 * over kept memory that holds whatever the last vector of that use left there, and stays valid
 * until that use is asked for again. Either way the caller writes every value before reading one.
 */
export type AllocateVector = (use: string, kind: VectorKind, length: number) => Vector;

export const freshVector: AllocateVector = (_use, kind, length) => new VECTOR_TYPES[kind](length);

/** Kept memory, one buffer a use, grown when a vector needs more (and kept at that size). */
export class VectorScratch {
  private readonly buffers = new Map<string, ArrayBuffer>();

  readonly allocate: AllocateVector = (use, kind, length) => {
    const Vector = VECTOR_TYPES[kind];
    const bytes = length * Vector.BYTES_PER_ELEMENT;
    let buffer = this.buffers.get(use);
    if (!buffer || buffer.byteLength < bytes) {
      buffer = new ArrayBuffer(bytes);
      this.buffers.set(use, buffer);
    }
    return new Vector(buffer, 0, length);
  };
}
