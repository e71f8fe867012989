// A record's values from ClickHouse's TSV answer, typed as the embedded engine types them: strings
// for string fields, numbers for integers and coordinates (a coordinate from its stored bits,
// schema.ts), so JSON.stringify gives the same bytes the dataset file holds.
import { FIELDS, type FieldType } from '../../shared/fields';
import type { RecordValues } from '../dataset/codec/recordFormat';
import { tsvUnescape } from './tsv';

const bits = new DataView(new ArrayBuffer(8));

/** The double whose 64 bits a UInt64's decimal text gives. */
export function floatFromBits(text: string): number {
  bits.setBigUint64(0, BigInt(text));
  return bits.getFloat64(0);
}

/** The decimal text of a double's 64 bits (what a coordinate column stores). */
export function bitsOfFloat(value: number): string {
  bits.setFloat64(0, value);
  return bits.getBigUint64(0).toString();
}

/** One TSV field as the value of a field of this type. */
export function valueOf(type: FieldType, field: string): string | number {
  if (type === 'string') return tsvUnescape(field);
  if (type === 'integer') return Number(field);
  return floatFromBits(field);
}

const TYPES = FIELDS.map((f) => f.type);

/** A whole record (every stored column in catalog order) as its values. */
export function recordValues(row: readonly string[]): RecordValues {
  const out: Array<string | number> = new Array(TYPES.length);
  for (let i = 0; i < TYPES.length; i++) out[i] = valueOf(TYPES[i]!, row[i]!);
  return out;
}

/** A whole record as the JSON array text the dataset file stores. */
export function recordJson(row: readonly string[]): string {
  return JSON.stringify(recordValues(row));
}
