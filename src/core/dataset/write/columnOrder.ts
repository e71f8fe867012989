// Vectors built in the order staged rows arrived (one "part" a reader), merged and put in the
// dataset's (STATE, PID) order once that order is known: exactly what ColumnSet makes from the
// final records in order (codes by first appearance, hashes past the dictionary limit, each vector
// as narrow as its values). docs/import.md, "Write".
import { FIELDS } from '../../../shared/fields';
import { DICTIONARY_LIMIT, HASHED_FIELDS } from './columnSet';
import type { BuiltColumn } from '../codec/columnVector';
import { kindFor, stringHash, VECTOR_TYPES as CTOR, type Vector, type VectorKind } from '../codec/columnVector';
import { freshVector, type AllocateVector } from './vectorScratch';

/**
 * Whether a field's parts cannot be merged exactly: a field that switched to hashes counting
 * values of rows that were later replaced might have kept a dictionary over the remaining rows
 * alone. Its column must be built again from the final records (buildStringColumn).
 */
export function needsRebuild(parts: ReadonlyArray<Pick<BuiltColumn, 'field' | 'encoding'>>, withDuplicates: boolean): boolean {
  return withDuplicates && parts.some((p) => p.encoding === 'hash') && !HASHED_FIELDS.has(FIELDS[parts[0]!.field]!.name);
}

/**
 * One field's column over the records in final order: position i holds the value of arrival
 * `order[i]`, arrivals numbered over the parts one after the other (part 0's rows first). Arrivals
 * absent from `order` (rows replaced by a later row of their PID) drop out. `allocate`: where the
 * vectors it makes go (vectorScratch.ts; uses 'joined', 'ordered' and 'narrowed', never a part's).
 */
export function permuteColumn(
  parts: readonly BuiltColumn[],
  order: ArrayLike<number>,
  dictionaryLimit = DICTIONARY_LIMIT,
  allocate: AllocateVector = freshVector,
): BuiltColumn {
  if (parts.length === 0) throw new Error('permuteColumn() needs at least one part.');
  const column = parts.length === 1 ? parts[0]! : concatenated(parts, allocate);
  if (column.encoding !== 'dict') return gathered(column, order, allocate);
  const final = renumbered(column, order, allocate);
  if (final.dict!.length <= dictionaryLimit) return final;
  // More distinct values over the final rows than a dictionary holds (each part alone held fewer).
  const hashOf = Uint32Array.from(final.dict!, stringHash);
  return gathered(
    { ...final, encoding: 'hash', dict: null, data: Uint32Array.from(final.data, (code) => hashOf[code]!) },
    identity(order.length),
    allocate,
  );
}

function identity(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** The narrowest kind that holds values of every one of `kinds`. */
function widest(kinds: readonly VectorKind[]): VectorKind {
  const has = (k: VectorKind): boolean => kinds.includes(k);
  if (has('f64') || (has('i32') && has('u32'))) return 'f64';
  return has('u32') ? 'u32' : has('i32') ? 'i32' : has('u16') ? 'u16' : 'u8';
}

/**
 * The parts one after the other as one column in arrival order: one dictionary (part 0's, then
 * the strings the others add; unused ones are dropped by renumbered()), or hashes when any part has
 * switched to them.
 */
function concatenated(parts: readonly BuiltColumn[], allocate: AllocateVector): BuiltColumn {
  const total = parts.reduce((sum, p) => sum + p.data.length, 0);
  const first = parts[0]!;
  if (parts.every((p) => p.encoding === 'dict')) {
    const dict = [...first.dict!];
    const codeOf = new Map(dict.map((v, code) => [v, code]));
    const remaps = parts.map((p, k) =>
      k === 0 ? undefined : Uint32Array.from(p.dict!, (v) => codeOf.get(v) ?? (codeOf.set(v, dict.length), dict.push(v) - 1)),
    );
    const data = allocate('joined', kindFor(0, dict.length - 1), total);
    let at = 0;
    parts.forEach((p, k) => {
      const remap = remaps[k];
      if (!remap) data.set(p.data, at);
      else for (let i = 0; i < p.data.length; i++) data[at + i] = remap[p.data[i]!]!;
      at += p.data.length;
    });
    return { ...first, data, dict, kind: kindFor(0, dict.length - 1) };
  }
  const hashes = parts.some((p) => p.encoding === 'hash');
  const values = parts.map((p) => {
    if (p.encoding !== 'dict') return p.data;
    const hashOf = Uint32Array.from(p.dict!, stringHash);
    return Uint32Array.from(p.data, (code) => hashOf[code]!);
  });
  const wide = widest(values.map((v, k) => (v === parts[k]!.data ? parts[k]!.kind : 'u32')));
  const data = allocate('joined', wide, total);
  let at = 0;
  for (const v of values) {
    data.set(v, at);
    at += v.length;
  }
  return { ...first, encoding: hashes ? 'hash' : first.encoding, dict: null, kind: wide, data };
}

/** A dictionary column in final order: codes renumbered by first appearance, unused strings dropped. */
function renumbered(column: BuiltColumn, order: ArrayLike<number>, allocate: AllocateVector): BuiltColumn {
  const src = column.data;
  const dict = column.dict!;
  const n = order.length;
  const out = allocate('ordered', kindOf(src), n);
  const renumber = new Int32Array(dict.length).fill(-1);
  const kept: string[] = [];
  for (let i = 0; i < n; i++) {
    const code = src[order[i]!]!;
    let next = renumber[code]!;
    if (next < 0) {
      next = renumber[code] = kept.length;
      kept.push(dict[code]!);
    }
    out[i] = next;
  }
  const kind = kindFor(0, kept.length - 1);
  return { ...column, kind, data: narrowed(out, kind, allocate), dict: kept };
}

/** Values (integers, hashes) in final order, in the narrowest kind that holds them. */
function gathered(column: BuiltColumn, order: ArrayLike<number>, allocate: AllocateVector): BuiltColumn {
  const src = column.data;
  const n = order.length;
  // The same kind as the source first: the remaining values fit, perhaps in a narrower one.
  const out = allocate('ordered', kindOf(src), n);
  let min = 0;
  let max = 0;
  let whole = true;
  for (let i = 0; i < n; i++) {
    const v = src[order[i]!]!;
    out[i] = v;
    if (v < min) min = v;
    else if (v > max) max = v;
    if (v !== Math.trunc(v)) whole = false;
  }
  const kind = kindFor(min, max, whole);
  return { ...column, kind, data: narrowed(out, kind, allocate), dict: null };
}

/** `values` as `kind` (which holds every one of them): themselves when they are that kind already. */
function narrowed(values: Vector, kind: VectorKind, allocate: AllocateVector): Vector {
  if (values instanceof CTOR[kind]) return values;
  const out = allocate('narrowed', kind, values.length);
  out.set(values);
  return out;
}

/** The kind of a vector's typed array. */
function kindOf(vector: Vector): VectorKind {
  const kind = (Object.keys(CTOR) as VectorKind[]).find((k) => vector instanceof CTOR[k]);
  if (!kind) throw new Error('A vector is not one of the typed arrays a column holds.');
  return kind;
}
