// The shapes an open dataset hands out (a state's positions, a field's vector, a range of
// positions), apart from dataset.ts so that the parts it delegates to can name them without
// importing the dataset itself.
import type { Vector } from '../codec/columnVector';

export interface StateRange {
  state: string;
  first: number;
  count: number;
}

/** A field's vector: the values (integers), dictionary codes, string hashes or millionths of a degree (docs/dataset-format.md). */
export interface ColumnVector {
  field: string;
  encoding: 'value' | 'dict' | 'hash' | 'micro';
  data: Vector;
  /** For 'dict' fields, the value of each code. */
  dict: string[] | null;
}

/** Positions [first, first + count): what a caller of column() will read of the vector. */
export interface PositionRange {
  first: number;
  count: number;
}
